import Foundation
import Testing

/// Issue 20: `--http1.1`/`--http2`, HTTP/2 multiplexing and TLS sessions shared across the engine's loops, by the
/// real binary against nginx over TLS on 127.0.0.1 (its connection log names each request's protocol, connection
/// and whether the TLS session was resumed).
@Suite("HTTP versions, multiplexing and TLS session reuse end to end", .serialized, .timeLimit(.minutes(5)))
struct HTTPVersionTests {
    let binary = ChildProcess.uploaderBinary
    static let files = 8

    /// PUTs `count` files of 200 kB to `url` with `--cacert`, `files` in flight, and expects all done.
    func upload(
        _ certificates: TestCertificates, to url: String, _ arguments: [String], count: Int = Self.files
    ) async throws {
        let folder = try TestFolder()
        for index in 0..<count { try folder.write("f\(index).bin", size: 200_000, seed: UInt64(index)) }
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--put", url, "--no-tui", "--concurrency", String(Self.files), "--cacert",
                certificates.caCertificate,
            ] + arguments,
            environment: TLSTrustTests.bare)
        #expect(outcome.status == 0, "\(outcome.standardError)")
    }

    @Test("over TLS, HTTP/2 is chosen when offered, and --http2 multiplexes 8 files on no more connections than loops")
    func http2Multiplexes() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        let url = "https://127.0.0.1:\(nginx.http2Port)"
        try await upload(certificates, to: url + "/default/", [])
        try await upload(certificates, to: url + "/h2/", ["--http2"])
        let logged = nginx.connections(port: nginx.http2Port)
        for folder in ["/default/", "/h2/"] {
            let requests = logged.filter { $0.uri.hasPrefix(folder) && $0.method == "PUT" }
            #expect(requests.count == Self.files)
            #expect(requests.allSatisfy { $0.protocolName == "HTTP/2.0" && $0.status == "201" })
            // One connection per engine loop at most (a loop per core, up to 4), never one per file.
            let connections = Set(requests.map(\.connection)).count
            #expect(connections <= min(4, ProcessInfo.processInfo.activeProcessorCount), "\(connections) connections")
            #expect(connections < Self.files)
        }
        await nginx.stop()
    }

    @Test("once a connection multiplexes, the rest of the batch rides it: one loop, not one connection per loop")
    func multiplexedOriginKeepsToOneLoop() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        let count = 3 * Self.files
        try await upload(certificates, to: "https://127.0.0.1:\(nginx.http2Port)/pinned/", [], count: count)
        let requests = nginx.connections(port: nginx.http2Port).filter {
            $0.uri.hasPrefix("/pinned/") && $0.method == "PUT"
        }
        #expect(requests.count == count)
        // At most the first requests in flight, sent before any answer told the protocol, could have gone to another
        // loop's connection.
        let busiest = Dictionary(grouping: requests, by: \.connection).values.map(\.count).max() ?? 0
        #expect(busiest >= count - Self.files + 2, "\(busiest) of \(count) requests on the busiest connection")
        await nginx.stop()
    }

    @Test("over HTTP/2 and TLS a PUT's DATA frames each fill one TLS record, not a full one and a 9-byte one")
    func framesFitRecords() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        let relay = try TLSRecordRelay(to: nginx.http2Port)
        try await upload(certificates, to: "https://127.0.0.1:\(relay.port)/records/", ["--http2"])
        relay.stop()
        let requests = nginx.connections(port: nginx.http2Port).filter { $0.uri.hasPrefix("/records/") }
        #expect(requests.count == Self.files && requests.allSatisfy { $0.protocolName == "HTTP/2.0" })
        // A 16 KiB frame sent whole is a full record and one of its lone 9-byte header: about 96 of them for these
        // 1.6 MB.
        let loneHeaders = relay.records(holding: 9)
        #expect(relay.recordLengths.reduce(0, +) > Self.files * 200_000, "the bodies went through the relay")
        // The one 9-byte frame a client sends on its own is its SETTINGS acknowledgement, once per connection.
        #expect(loneHeaders <= 4, "\(loneHeaders) records of a 9-byte frame alone")
        await nginx.stop()
    }

    @Test("over TLS to a server offering HTTP/1.1 only, bodies are read in libcurl's whole buffer, not frame by frame")
    func http11KeepsWholeReads() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        let relay = try TLSRecordRelay(to: nginx.tlsPort)
        // The default version: until the server answers, the engine cannot know it will not multiplex.
        try await upload(certificates, to: "https://127.0.0.1:\(relay.port)/whole/", [])
        relay.stop()
        let requests = nginx.connections(port: nginx.tlsPort).filter { $0.uri.hasPrefix("/whole/") }
        #expect(requests.count == Self.files && requests.allSatisfy { $0.protocolName == "HTTP/1.1" })
        // Full records of 16,384 bytes, not a frame-fitting read's 16,375.
        let whole = relay.records(holding: 16_384)
        let cut = relay.records(holding: 16_375)
        #expect(whole >= Self.files * (200_000 / 16_384) && cut == 0, "\(whole) whole records, \(cut) cut to frames")
        await nginx.stop()
    }

    @Test("over HTTP/2 and TLS a multipart POST arrives whole, in DATA frames that each fill one TLS record")
    func multipartFramesFitRecords() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        let relay = try TLSRecordRelay(to: nginx.http2Port)
        let folder = try TestFolder()
        var contents: [String: [UInt8]] = [:]
        for index in 0..<3 {
            let name = "p\(index).jpg"
            try folder.write(name, size: 90_000 + index, seed: UInt64(index), prefix: Magic.jpeg)
            contents[name] = try Array(Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + name)))
        }
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", "https://127.0.0.1:\(relay.port)/form/batch", "--batch", "all", "--no-tui",
                "--cacert", certificates.caCertificate, "--http2",
            ],
            environment: TLSTrustTests.bare)
        relay.stop()
        #expect(outcome.status == 0, "\(outcome.standardError)")
        // nginx read the POST whole and stored it as it came: the multipart body, every file in a part of its own.
        let body = try Array(Data(contentsOf: URL(fileURLWithPath: nginx.davRoot + "/form/batch")))
        for (name, content) in contents {
            let head = Array("; filename=\"\(name)\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            let at = try #require(RawCapture.find(head, in: body), "\(name)'s part")
            #expect(Array(body[(at + head.count)...].prefix(content.count)) == content, "\(name)'s bytes")
        }
        let loneHeaders = relay.records(holding: 9)
        #expect(loneHeaders <= 4, "\(loneHeaders) records of a 9-byte frame alone")
        await nginx.stop()
    }

    @Test("--max-host-connections 2: 16 files, 8 in flight over HTTP/1.1, on 2 connections; the rest wait, none stalls")
    func hostConnectionCap() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        let count = 2 * Self.files
        try await upload(
            certificates, to: "https://127.0.0.1:\(nginx.http2Port)/capped/",
            ["--http1.1", "--max-host-connections", "2", "--stall-timeout", "1"], count: count)
        let requests = nginx.connections(port: nginx.http2Port).filter {
            $0.uri.hasPrefix("/capped/") && $0.method == "PUT"
        }
        #expect(requests.count == count)
        #expect(requests.allSatisfy { $0.protocolName == "HTTP/1.1" && $0.status == "201" })
        // Without the cap, 8 transfers in flight over HTTP/1.1 open 8 connections.
        let connections = Set(requests.map(\.connection)).count
        #expect(connections <= 2, "\(connections) connections")
        await nginx.stop()
    }

    @Test("--http1.1 keeps to HTTP/1.1 on a server offering HTTP/2")
    func http11() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        try await upload(certificates, to: "https://127.0.0.1:\(nginx.http2Port)/h1/", ["--http1.1"])
        let requests = nginx.connections(port: nginx.http2Port).filter { $0.method == "PUT" }
        #expect(requests.count == Self.files)
        #expect(requests.allSatisfy { $0.protocolName == "HTTP/1.1" })
        await nginx.stop()
    }

    @Test("--http2 over http:// to the reference server, which does not upgrade: 30 files on reused connections")
    func h2cRefused() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("h2c")
        for index in 0..<30 { try folder.write("f\(index).bin", size: 20_000, seed: UInt64(index)) }
        // Once a connection had carried an `Upgrade: h2c` request, the server read no more from it: the next
        // request on it waited for ever, or here until the response timeout.
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--put", server.url("/files/h2c/"), "--http2", "--no-resume", "--no-tui", "--concurrency",
                "2", "--retries", "0", "--response-timeout", "5",
            ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(await server.server.statistics.filesStored == 30)
        await server.stop()
    }

    @Test("a new connection resumes the TLS session an earlier one made, whichever loop it is on")
    func sessionsResume() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        // The server closes every connection after one request, and one file at a time, so each file after the
        // first opens a connection that can resume the session of the one before.
        let folder = try TestFolder()
        for index in 0..<6 { try folder.write("s\(index).bin", size: 50_000, seed: UInt64(index)) }
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--put", "https://127.0.0.1:\(nginx.oneRequestPort)/s/", "--no-tui", "--concurrency", "1",
                "--cacert", certificates.caCertificate,
            ],
            environment: TLSTrustTests.bare)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let requests = nginx.connections(port: nginx.oneRequestPort).filter { $0.method == "PUT" }
        #expect(requests.count == 6)
        #expect(Set(requests.map(\.connection)).count == 6)
        let reused = requests.map(\.sessionReused)
        #expect(reused == [false] + Array(repeating: true, count: 5))
        await nginx.stop()
    }
}
