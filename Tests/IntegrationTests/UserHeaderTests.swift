import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// `-H` in place of a header of ours with the same name, as curl does: one `Authorization`, one `Content-Type`.
@Suite("user headers replace ours", .serialized)
struct UserHeaderTests {
    func lines(_ name: String, in request: RawCapture.Request) -> [String] {
        request.head.dropFirst().filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }
    }

    @Test("a PUT sends the user's Content-Type and Authorization only; a multipart POST keeps its boundary's type")
    func oneOfEach() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder()
        try folder.write("a.png", size: 2_000, seed: 4, prefix: Magic.png)
        let item = try #require(try FileScanner().scan([folder.path]).items.first)
        let headers = [
            try #require(HTTPHeader(name: "Content-Type", value: "text/plain")),
            try #require(HTTPHeader(name: "authorization", value: "Bearer other")),
        ]
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        let put = try await PutPlanner(baseURL: capture.url + "/", headers: headers, token: "tok1").request(for: [item])
        let post = try await MultipartPlanner(
            url: capture.url, fileField: "file", fields: [], headers: headers, token: "tok1", batchSize: 1
        ).request(for: [item])
        #expect(try await engine.send(put, probe: TransferProbe()).isSuccess)
        #expect(try await engine.send(post, probe: TransferProbe()).isSuccess)
        engine.shutdown()
        capture.stop()

        let requests = capture.requests
        let (sentPut, sentPost) = try #require(requests.count == 2 ? (requests[0], requests[1]) : nil)
        #expect(lines("Content-Type", in: sentPut) == ["Content-Type: text/plain"])
        #expect(lines("Authorization", in: sentPut) == ["authorization: Bearer other"])
        #expect(lines("Authorization", in: sentPost) == ["authorization: Bearer other"])
        #expect(lines("Content-Type", in: sentPost).count == 1)
        #expect(sentPost.boundary != nil && sentPost.header("Content-Type")?.hasPrefix("multipart/form-data") == true)
    }

    @Test("the curl command sends the headers the request sent: a user's Authorization, no bearer, one Content-Type")
    func curlCommandSendsTheSame() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder()
        try folder.write("a.png", size: 2_000, seed: 4, prefix: Magic.png)
        let item = try #require(try FileScanner().scan([folder.path]).items.first)
        let headers = [
            try #require(HTTPHeader(name: "Content-Type", value: "text/plain")),
            try #require(HTTPHeader(name: "Authorization", value: "Basic dXNlcjpwdw==")),
        ]
        let put = PutPlanner(baseURL: capture.url + "/", headers: headers, token: "tok1")
        let post = MultipartPlanner(
            url: capture.url, fileField: "file", fields: [], headers: headers, token: "tok1", batchSize: 1)
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        for planner in [put, post] as [any RequestPlanner] {
            #expect(try await engine.send(planner.request(for: [item]), probe: TransferProbe()).isSuccess)
            let command = planner.curlCommand(for: item)
            let outcome = try await ChildProcess.run(
                "/bin/sh", ["-c", command + " -sS -o /dev/null"],
                environment: ["UPLOADER_TOKEN": "tok1"].merging(TLSTrustTests.bare) { $1 })
            #expect(outcome.status == 0, "\(command): \(outcome.standardError)")
        }
        engine.shutdown()
        capture.stop()

        let requests = capture.requests
        try #require(requests.count == 4)
        for (sent, byCurl) in [(requests[0], requests[1]), (requests[2], requests[3])] {
            // The command's secret is a placeholder; what matters is that there is one, the user's, and no bearer.
            #expect(lines("Authorization", in: sent) == ["Authorization: Basic dXNlcjpwdw=="])
            #expect(lines("Authorization", in: byCurl) == ["Authorization: REDACTED"], "\(byCurl.head)")
            // A form's type names its own boundary: the type before it is what must match.
            let types = { (request: RawCapture.Request) in
                self.lines("Content-Type", in: request).map { $0.prefix { $0 != ";" } }
            }
            #expect(types(byCurl) == types(sent), "\(byCurl.head)")
        }
    }

    @Test(
        "-H with a header libcurl frames the request with is refused, naming it: exit 2, nothing sent",
        arguments: ["Content-Length: 3", "transfer-encoding: chunked", "Host: other.example", "Connection: close"])
    func framingHeaderRefused(header: String) async throws {
        let capture = try RawCapture()
        defer { capture.stop() }
        let folder = try TestFolder()
        try folder.write("a.bin", size: 10, seed: 1)
        let name = String(header.prefix { $0 != ":" })
        for mode in [["--to", capture.url], ["--put", capture.url + "/"], ["--presign", capture.url]] {
            let outcome = try await ChildProcess.run(
                ChildProcess.uploaderBinary, [folder.path, "--no-resume", "-H", header] + mode)
            #expect(outcome.status == 2, "\(mode): \(outcome.standardError)")
            #expect(
                outcome.standardError.contains("uploader-tui: -H \(name): set by libcurl from the request, not by -H"),
                "\(outcome.standardError)")
        }
        #expect(capture.requests.isEmpty)
    }
}
