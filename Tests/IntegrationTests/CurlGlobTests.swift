import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// curl reads `[]` and `{}` in `-T` paths and in URLs as globs: the command turns them off where they occur.
@Suite("the curl command and curl's globs", .serialized)
struct CurlGlobTests {
    @Test("a file named photo[1].jpg and a URL with brackets and braces: curl sends what the request sent")
    func bracketsAndBraces() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder("glob")
        try folder.write("photo[1].jpg", size: 2_000, seed: 4, prefix: Magic.jpeg)
        try folder.write("b{x,y}.jpg", size: 2_100, seed: 5, prefix: Magic.jpeg)
        let items = try FileScanner().scan([folder.path]).items
        try #require(items.count == 2)
        let planners: [any RequestPlanner] = [
            PutPlanner(baseURL: capture.url + "/", headers: [], token: nil),
            MultipartPlanner(
                url: capture.url + "/up?tag=[a]{b}", fileField: "file", fields: [], headers: [], token: nil,
                batchSize: 1),
        ]
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        for planner in planners {
            for item in items {
                #expect(try await engine.send(planner.request(for: [item]), probe: TransferProbe()).isSuccess)
                let command = planner.curlCommand(for: item)
                let outcome = try await ChildProcess.run(
                    "/bin/sh", ["-c", command + " -sS -o /dev/null"], environment: TLSTrustTests.bare)
                #expect(outcome.status == 0, "\(command): \(outcome.standardError)")
            }
        }
        engine.shutdown()
        capture.stop()
        let requests = capture.requests
        try #require(requests.count == 8, "\(requests.map(\.head))")
        // Each pair: the request, then curl's: the same request line, so the same file to the same URL; a PUT's body
        // is the file's bytes.
        for pair in stride(from: 0, to: 8, by: 2) {
            #expect(requests[pair].head.first == requests[pair + 1].head.first, "\(requests[pair + 1].head)")
            if pair < 4 { #expect(requests[pair].body == requests[pair + 1].body) }
        }
    }

    @Test("a plain path and URL need no --globoff; the S3 and presign commands turn globs off where they occur")
    func onlyWhereNeeded() throws {
        let plain = UploadItem(id: 0, path: "/p/a.png", relativePath: "a.png", size: 1, modified: 0, contentType: "x")
        let odd = UploadItem(
            id: 1, path: "/p/photo[1].jpg", relativePath: "photo[1].jpg", size: 1, modified: 0, contentType: "x")
        let put = PutPlanner(baseURL: "http://h/files/", headers: [], token: nil)
        #expect(!put.curlCommand(for: plain).contains("--globoff"))
        #expect(put.curlCommand(for: odd).hasPrefix("curl --fail-with-body --globoff -T"))
        let s3 = S3Planner(
            location: try S3Location(url: "s3://bkt/"),
            endpoint: S3Endpoint(endpointURL: "http://127.0.0.1:9", region: "us-east-1", pathStyle: true),
            signer: SigV4Signer(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "s"), region: "r"),
            multipartThreshold: .max, partSize: 5 << 20, partConcurrency: 1)
        #expect(!s3.curlCommand(for: plain).contains("--globoff"))
        #expect(s3.curlCommand(for: odd).contains("--globoff"))
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        defer { engine.shutdown() }
        let presign = PresignPlanner(
            endpoint: "http://h/presign", token: nil, headers: [], mediaType: nil, ticketBatch: 1, items: [odd],
            transport: engine)
        let command = presign.curlCommand(for: odd)
        #expect(command.contains("then, with the returned uploadTicket: curl --fail-with-body --globoff -T"))
    }
}
