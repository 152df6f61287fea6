import Foundation
import Testing
import UploadData
import UploadDomain

@Suite("Multipart uploads through libcurl to the reference server", .serialized)
struct MultipartUploadTests {
    @Test("50 files in parallel arrive byte for byte (sha256), each with its stored path")
    func fiftyFilesInParallel() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        var sources: [String: String] = [:]
        for i in 0..<50 {
            let name = String(format: "img-%02d.jpg", i)
            let path = try folder.write(name, size: 1_000 + i * 7_919, seed: UInt64(i), prefix: Magic.jpeg)
            sources[name] = try sha256(ofFile: path)
        }
        let run = try SessionRun(paths: [folder.path], planner: MultipartPlanner.reference(server), concurrency: 8)
        let (snapshot, events) = await run.complete()
        #expect(snapshot.progress.counts.done == 50)
        #expect(snapshot.toast == .done)
        for file in snapshot.files {
            let location = try #require(file.result?.location, "\(file.name) has no stored path")
            #expect(location == "datasets/d1/\(file.name)")
            #expect(try sha256(ofFile: server.stored(location)) == sources[file.name])
            #expect(file.result?.body.contains("\"signature\":\"jpeg\"") == true)
        }
        // Every file went queued -> started -> modeling -> done, in that order.
        for id in 0..<50 {
            let kinds = events.filter { $0.file.id == id }.map(\.kind)
            #expect(kinds == [.queued, .started, .modeling, .done], "file \(id): \(kinds)")
        }
        #expect(await server.server.statistics.requests == 50)
        await server.stop()
    }

    @Test("the curl command the details offer reproduces each file's request: stored once, then answered again")
    func curlCommandReproduces() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        for i in 0..<2 { try folder.write("c\(i).jpg", size: 3_000 + i, seed: UInt64(i), prefix: Magic.jpeg) }
        let planner = MultipartPlanner.reference(server)
        let run = try SessionRun(paths: [folder.path], planner: planner)
        let commands = run.items.map(planner.curlCommand(for:))
        for _ in 0..<2 {
            for command in commands {
                let outcome = try await ChildProcess.run("/bin/sh", ["-c", command + " -s -o /dev/null"])
                #expect(outcome.status == 0, "\(command): \(outcome.standardError)")
            }
        }
        let stats = await server.server.statistics
        #expect(stats.storedByPath == ["datasets/d1/c0.jpg": 1, "datasets/d1/c1.jpg": 1])
        #expect(stats.idempotentReplays == 2)
        #expect(stats.idempotencyMismatches == 0)
        run.engine.shutdown()
        await server.stop()
    }

    @Test(
        "the curl command quotes what -F would misread (; , \" \\ in a name, @ in a field): curl stores each file whole"
    )
    func curlCommandOddNames() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("curl-odd;dir,x")
        let names = ["semi;colon,type=x.bin", "q\"uote\\back.bin"]
        var sources: [String: String] = [:]
        for (index, name) in names.enumerated() {
            sources[name] = try sha256(ofFile: try folder.write(name, size: 5_000 + index, seed: UInt64(40 + index)))
        }
        let planner = MultipartPlanner.reference(server, fields: [FormField(name: "note", value: "@x;type=y,z")])
        let run = try SessionRun(paths: [folder.path], planner: planner)
        for item in run.items {
            let command = planner.curlCommand(for: item)
            let outcome = try await ChildProcess.run("/bin/sh", ["-c", command + " -sS -o /dev/null"])
            #expect(outcome.status == 0, "\(command): \(outcome.standardError)")
        }
        let stored = await server.server.statistics.storedByPath
        #expect(stored.count == 2, "\(stored)")
        #expect(stored["datasets/d1/semi;colon,type=x.bin"] == 1, "\(stored)")
        // The server cleans the other name its own way; the bytes are what must be whole.
        let digests = try stored.keys.map { try sha256(ofFile: server.stored($0)) }
        #expect(Set(digests) == Set(sources.values), "\(stored)")
        run.engine.shutdown()
        await server.stop()
    }

    @Test("--batch sends several files in one request and splits the answer per file")
    func batchedRequest() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        for i in 0..<7 { try folder.write("p\(i).png", size: 5_000 + i, seed: UInt64(100 + i), prefix: Magic.png) }
        let planner = MultipartPlanner.reference(server, batch: 3, fields: [FormField(name: "album", value: "pets")])
        let run = try SessionRun(paths: [folder.path], planner: planner)
        let (snapshot, _) = await run.complete()
        #expect(snapshot.progress.counts.done == 7)
        #expect(await server.server.statistics.requests == 3)
        for file in snapshot.files {
            #expect(file.result?.location == "datasets/d1/\(file.name)")
            #expect(file.result?.body.contains("\"contentType\":\"image/png\"") == true)
        }
        await server.stop()
    }

    @Test("cancelling one transfer mid-flight ends it cancelled; the others finish")
    func cancelOneMidFlight() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a-big.bin", size: 8 << 20, seed: 1)
        for i in 0..<3 { try folder.write("small-\(i).bin", size: 64 << 10, seed: UInt64(10 + i)) }
        // 1 MiB/s per transfer: the big file needs ~8 s, the small ones well under a second.
        let run = try SessionRun(
            paths: [folder.path], planner: MultipartPlanner.reference(server), concurrency: 4,
            options: CurlEngine.Options(maxSendSpeed: 1 << 20))
        let big = try #require(run.items.first { $0.relativePath == "a-big.bin" })
        let collector = Task { await run.session.events.reduce(into: [UploadEvent]()) { $0.append($1) } }
        await run.session.start()
        // Wait (by condition, not by time) until the big file has bytes on the wire but is not done.
        var sent: Int64 = 0
        while sent == 0 {
            await Task.yield()
            sent = await run.session.snapshot().files[big.id].sent
        }
        await run.session.handle(.cancel(fileID: big.id))
        await run.session.waitUntilIdle()
        await run.session.finishEvents()
        let events = await collector.value
        let snapshot = await run.session.snapshot()
        #expect(snapshot.files[big.id].phase == .cancelled)
        #expect(snapshot.files[big.id].sent < big.size)
        #expect(snapshot.progress.counts.done == 3)
        #expect(events.last { $0.file.id == big.id }?.kind == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: server.stored("datasets/d1/a-big.bin")))
        run.engine.shutdown()
        await server.stop()
    }

    @Test("hostile file names arrive intact or percent-encoded and never inject a header or a part")
    func hostileFileNames() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        let names = [
            "with space.jpg", "quote\"d.jpg", "semi;colon.jpg", "고양이.jpg", "emoji😀.jpg", "cr\rlf\n.jpg",
            "inject.jpg\r\nContent-Type: text-html\r\nX-Evil: 1\r\n\r\nX",
        ]
        var hashes: [String: String] = [:]
        for (i, name) in names.enumerated() {
            hashes[name] = try sha256(
                ofFile: try folder.write(name, size: 3_000 + i, seed: UInt64(i), prefix: Magic.jpeg))
        }
        let planner = MultipartPlanner.reference(
            server, batch: names.count, fields: [FormField(name: "note", value: "x")])
        let run = try SessionRun(paths: [folder.path], planner: planner)
        let (snapshot, _) = await run.complete()
        #expect(snapshot.progress.counts.done == names.count)
        let stats = await server.server.statistics
        #expect(stats.requests == 1)
        #expect(stats.filesStored == names.count, "an injected part would add a file")
        for file in snapshot.files {
            let body = try #require(file.result?.body)
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            let received = try #require(entry["filename"] as? String)
            let encoded = file.name.replacingOccurrences(of: "\"", with: "%22")
                .replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
            #expect(received == file.name || received == encoded, "\(received.debugDescription)")
            #expect(entry["contentType"] as? String == "image/jpeg", "the part's own type, not an injected one")
            let location = try #require(file.result?.location)
            #expect(try sha256(ofFile: server.stored(location)) == hashes[file.name])
        }
        await server.stop()
    }

    @Test("a server error fails the file with the status and a body excerpt; a refused connection names the cause")
    func errorsAreReported() async throws {
        let failing = try await ServerFixture.start {
            $0.failRate = 1; $0.failStatus = 500
        }
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 2_000, seed: 1, prefix: Magic.jpeg)
        let (snapshot, _) = await (try SessionRun(paths: [folder.path], planner: MultipartPlanner.reference(failing)))
            .complete()
        let error = try #require(snapshot.files[0].error)
        #expect(snapshot.files[0].phase == .failed)
        #expect(error.code == .serverError)
        #expect(error.description.hasPrefix("a.jpg: HTTP 500 server error — "))
        #expect(error.description.contains("injected fault"))
        await failing.stop()

        let refused = MultipartPlanner(
            url: "http://127.0.0.1:1/x", fileField: "file", fields: [], headers: [], token: nil, batchSize: 1)
        let (refusedSnapshot, _) = await (try SessionRun(paths: [folder.path], planner: refused)).complete()
        #expect(refusedSnapshot.files[0].error?.code == .connectionFailed)
        #expect(refusedSnapshot.files[0].error?.description.contains("a.jpg: connection failed") == true)
    }

    @Test("--put sends raw bytes to the base URL plus each relative path")
    func plainPut() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("top.png", size: 10_000, seed: 5, prefix: Magic.png)
        try folder.write("sub dir/nested.jpg", size: 20_000, seed: 6, prefix: Magic.jpeg)
        let planner = PutPlanner(baseURL: server.url("/files/run1"), headers: [], token: nil)
        let run = try SessionRun(paths: [folder.path], planner: planner, recursive: true)
        let (snapshot, events) = await run.complete()
        #expect(snapshot.progress.counts.done == 2)
        for file in snapshot.files {
            let location = try #require(file.result?.location)
            #expect(location == "files/run1/\(file.name)")
            #expect(try sha256(ofFile: server.stored(location)) == (try sha256(ofFile: file.path)))
            #expect(events.filter { $0.file.id == file.id }.map(\.kind) == [.queued, .started, .modeling, .done])
        }
        await server.stop()
    }
}
