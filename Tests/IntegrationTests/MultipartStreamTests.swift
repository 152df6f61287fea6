import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// A multipart body is framed here and streamed (issue 20, `MultipartStream`): the same bytes as curl's own
/// `curl -F` body, read whole, or a frame-fitting chunk at a time as over HTTP/2 and TLS, through real libcurl to a
/// listener on 127.0.0.1.
@Suite("streamed multipart bodies", .serialized)
struct MultipartStreamTests {
    @Test("the streamed body is curl -F's byte for byte, read whole or at most 16,375 bytes at a time")
    func sameBytesAsCurl() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder()
        let (request, _) = try await capture.hostileForm(in: folder, sizes: (70_000, 33_000))
        #expect(!InlineBody.fits(request))
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))

        let whole = try await engine.send(request, probe: TransferProbe())
        #expect(whole.isSuccess && engine.lastLargestRead > FileBody.frameFittingRead)
        engine.readsAsForHTTP2OverTLS.store(true, ordering: .relaxed)
        let fitted = try await engine.send(request, probe: TransferProbe())
        #expect(fitted.isSuccess && engine.lastLargestRead <= FileBody.frameFittingRead)
        engine.shutdown()
        try await capture.sendWithCurlTool(request)
        capture.stop()

        let requests = capture.requests
        let viaCurl = try #require(requests.count == 3 ? requests[2] : nil)
        for sent in requests.prefix(2) {
            #expect(sent.boundary != nil && sent.boundary != viaCurl.boundary)
            #expect(
                sent.sameMultipartBody(as: viaCurl),
                "curl's body with the stream's boundary (\(viaCurl.body.count), \(sent.body.count))")
            #expect(sent.header("Content-Length") == String(sent.body.count))
            #expect(sent.header("Expect") == nil && sent.head.first == "POST /capture HTTP/1.1")
        }
        #expect(whole.contentHashes == fitted.contentHashes && fitted.contentHashes.allSatisfy { $0 != nil })
    }

    @Test("under a bandwidth cap the streamed body waits for the cap's tokens and still arrives byte for byte")
    func underBandwidthCap() async throws {
        let capture = try RawCapture()
        let folder = try TestFolder()
        let (request, _) = try await capture.hostileForm(in: folder, sizes: (70_000, 33_000))
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        let free = try await engine.send(request, probe: TransferProbe())
        // About 104 kB at 100 kB/s: past the bucket's first 64 KiB the reads run out of tokens, so the transfer
        // pauses and resumes, and the rest cannot take less than 0.39 s.
        engine.setBandwidthLimit(100_000)
        let started = ContinuousClock.now
        let capped = try await engine.send(request, probe: TransferProbe())
        let took = ContinuousClock.now - started
        engine.shutdown()
        capture.stop()
        #expect(free.isSuccess && capped.isSuccess && capped.contentHashes == free.contentHashes)
        #expect(took > .milliseconds(300), "\(took): the cap held the body back")
        let (sentFree, sentCapped) = try #require(
            capture.requests.count == 2 ? (capture.requests[0], capture.requests[1]) : nil)
        #expect(sentCapped.sameMultipartBody(as: sentFree))
    }

    @Test("a rewind to any point reads the rest of the body again; a file read again from its middle has no hash")
    func rewind() throws {
        let folder = try TestFolder()
        try folder.write("a.bin", size: 40_000, seed: 4)
        try folder.write("b.bin", size: 0, seed: 5)
        try folder.write("c.bin", size: 20_001, seed: 6)
        let items = try FileScanner().scan([folder.path]).items
        let stream = { () -> (MultipartStream, [FileBody]) in
            let bodies = items.map { FileBody($0) }
            let stream = MultipartStream(
                fields: [FormField(name: "f", value: "v")], fileField: "file", files: items, bodies: bodies,
                boundary: Array("------------------------0123456789abcdef".utf8))
            stream.readLimit = 7_000
            return (stream, bodies)
        }
        let (whole, wholeBodies) = stream()
        let all = Self.readAll(whole)
        let wholeHashes = wholeBodies.map(\.contentHash)
        #expect(all.count == Int(whole.length) && whole.length > 60_001)
        let (again, bodies) = stream()
        _ = Self.readAll(again)
        #expect(again.seek(to: 0) && Self.readAll(again) == all)
        let hashes = bodies.map(\.contentHash)
        #expect(hashes.allSatisfy { $0 != nil } && hashes == wholeHashes)
        // 40,100 lies inside a.bin's content (after the field's part and a.bin's head, about 200 bytes).
        for position in [1, 150, 40_100, Int(again.length) - 3, Int(again.length)] {
            #expect(again.seek(to: Int64(position)))
            #expect(Self.readAll(again) == Array(all[position...]), "from \(position)")
        }
        #expect(!again.seek(to: again.length + 1))
        #expect(bodies.map(\.contentHash) == [nil, hashes[1], hashes[2]])
    }

    /// Every byte `stream` has left, read as libcurl reads it: 64 KiB asked at a time, until 0.
    private static func readAll(_ stream: MultipartStream) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [CChar](repeating: 0, count: 64 << 10)
        while true {
            let read = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, capacity: $0.count) }
            guard read > 0 else { break }
            #expect(read <= 7_000)
            bytes += buffer[..<read].map { UInt8(bitPattern: $0) }
        }
        return bytes
    }
}
