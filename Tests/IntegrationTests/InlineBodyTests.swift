import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// Small bodies go out with their request's headers in one write (issue 20, `InlineBody`): the same bytes as the
/// streamed body they replace, and as `curl -F` sends, through real libcurl to a listener on 127.0.0.1.
@Suite("small bodies sent with their headers", .serialized)
struct InlineBodyTests {
    @Test("a small multipart request is framed byte for byte as curl -F frames it, and read by no callback")
    func multipartAsCurlFramesIt() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder()
        let (request, items) = try await capture.hostileForm(in: folder, sizes: (3_000, 20_000))
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))

        let inline = try await engine.send(request, probe: TransferProbe())
        #expect(inline.isSuccess && engine.lastLargestRead == 0, "no read callback: the body went with the headers")
        // Under a bandwidth cap (far above what loopback needs) the body is streamed instead.
        engine.setBandwidthLimit(1 << 30)
        let streamed = try await engine.send(request, probe: TransferProbe())
        #expect(streamed.isSuccess && engine.lastLargestRead > 0)
        engine.shutdown()
        try await capture.sendWithCurlTool(request)
        capture.stop()

        let requests = capture.requests
        let (sent, viaCurl) = try #require(requests.count == 3 ? (requests[0], requests[2]) : nil)
        #expect(sent.boundary != nil && sent.boundary != viaCurl.boundary)
        #expect(
            sent.sameMultipartBody(as: viaCurl),
            "curl's body with the inline boundary: the same bytes (\(viaCurl.body.count), \(sent.body.count))")
        #expect(requests[1].sameMultipartBody(as: sent), "the streamed body")
        #expect(sent.header("Content-Length") == String(sent.body.count))
        #expect(sent.header("Content-Length") == viaCurl.header("Content-Length"))
        #expect(sent.header("Expect") == nil && sent.head.first == "POST /capture HTTP/1.1")
        for item in items {
            #expect(Self.occurs(try Array(Data(contentsOf: URL(fileURLWithPath: item.path))), in: sent.body))
        }
        #expect(String(decoding: sent.body, as: UTF8.self).contains("name=\"fi%22le\"; filename=\"cr%0Dlf%0A.png\""))
        #expect(inline.contentHashes == streamed.contentHashes && inline.contentHashes.allSatisfy { $0 != nil })
    }

    @Test("a small PUT sends the file's bytes with its own Content-Type and hashes it as the streamed body does")
    func smallPut() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder()
        try folder.write("a.png", size: Int(InlineBody.limit), seed: 4, prefix: Magic.png)
        let item = try #require(try FileScanner().scan([folder.path]).items.first)
        let request = try await PutPlanner(baseURL: capture.url + "/", headers: [], token: nil).request(for: [item])
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        let inline = try await engine.send(request, probe: TransferProbe())
        #expect(engine.lastLargestRead == 0)
        engine.setBandwidthLimit(1 << 30)
        let streamed = try await engine.send(request, probe: TransferProbe())
        #expect(engine.lastLargestRead > 0)
        engine.shutdown()
        capture.stop()

        let sent = try #require(capture.requests.first)
        #expect(sent.head.first == "PUT /capture/a.png HTTP/1.1")
        #expect(sent.header("Content-Type") == "image/png", "the file's type, not libcurl's form-urlencoded default")
        #expect(sent.body == (try Array(Data(contentsOf: URL(fileURLWithPath: item.path)))))
        #expect(capture.requests.count == 2 && capture.requests[1].body == sent.body)
        #expect(inline.contentHashes.count == 1 && inline.contentHashes == streamed.contentHashes)
    }

    @Test("only a body of at most 48 KiB of files goes inline; a larger one streams")
    func limit() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder()
        try folder.write("over.jpg", size: Int(InlineBody.limit) + 1, seed: 5, prefix: Magic.jpeg)
        let item = try #require(try FileScanner().scan([folder.path]).items.first)
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        let request = try await MultipartPlanner(
            url: capture.url, fileField: "file", fields: [], headers: [], token: nil, batchSize: 1
        ).request(for: [item])
        #expect(!InlineBody.fits(request))
        #expect(try await engine.send(request, probe: TransferProbe()).isSuccess)
        #expect(engine.lastLargestRead > 0)
        engine.shutdown()
        capture.stop()
        #expect(capture.requests.first?.body.count ?? 0 > Int(InlineBody.limit))
    }

    @Test("a file that shrank after the scan fails as changed, and nothing is sent")
    func shrunk() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder()
        let path = try folder.write("a.jpg", size: 4_000, seed: 6, prefix: Magic.jpeg)
        let item = try #require(try FileScanner().scan([folder.path]).items.first)
        truncate(path, 1_000)
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        let request = try await MultipartPlanner(
            url: capture.url, fileField: "file", fields: [], headers: [], token: nil, batchSize: 1
        ).request(for: [item])
        do {
            _ = try await engine.send(request, probe: TransferProbe())
            Issue.record("a shrunk file was sent")
        } catch let error as UploadError {
            #expect(error.code == .fileChanged, "\(error)")
        }
        engine.shutdown()
        capture.stop()
        #expect(capture.requests.isEmpty)
    }

    @Test("the boundary's digits inside a file or a field send the request streamed instead")
    func boundaryInContent() async throws {
        let folder = try TestFolder()
        let boundary = String(repeating: "-", count: 24) + "0123456789abcdef"
        try folder.write("a.txt", size: 18, seed: 0, prefix: Array("x0123456789abcdefy".utf8))
        try folder.write("b.txt", size: 100, seed: 7)
        let items = try FileScanner().scan([folder.path]).items
        let request = { (items: [UploadItem], fields: [FormField]) in
            TransferRequest(
                method: .post, url: "http://127.0.0.1:1/", headers: [], bearerToken: nil,
                body: .multipart(fields: fields, fileField: "file", files: items))
        }
        #expect(try InlineBody(request(items, []), boundary: boundary, descriptor: { _ in -1 }) == nil)
        #expect(try InlineBody(request([items[1]], []), boundary: boundary, descriptor: { _ in -1 }) != nil)
        let field = [FormField(name: "f", value: boundary)]
        #expect(try InlineBody(request([items[1]], field), boundary: boundary, descriptor: { _ in -1 }) == nil)
    }

    private static func occurs(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        needle.isEmpty || RawCapture.find(needle, in: haystack) != nil
    }
}
