import Foundation
import Synchronization
import Testing
import UploadData
import UploadDomain

/// The engine sends on several threads, each with its own multi handle (issue 6: one thread's sending was the
/// limit of a 300-file run). Requests in flight together must be spread over them, and each still arrive whole.
@Suite("CurlEngine's threads", .serialized)
struct EngineThreadsTests {
    @Test("eight requests sent together go out on both threads and all arrive byte for byte")
    func requestsSpread() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        var sources: [String: String] = [:]
        for i in 0..<8 {
            let path = try folder.write("t\(i).jpg", size: 256 << 10, seed: UInt64(i), prefix: Magic.jpeg)
            sources["t\(i).jpg"] = try sha256(ofFile: path)
        }
        let items = try FileScanner().scan([folder.path]).items
        let planner = MultipartPlanner.reference(server)
        let engine = CurlEngine(options: CurlEngine.Options(threads: 2))
        // The thread each request's last byte left from (the probe's callback runs on the request's curl thread).
        let senders = ThreadNames()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for item in items {
                let request = try await planner.request(for: [item])
                group.addTask {
                    let probe = TransferProbe(onAllSent: { senders.add(currentThreadName()) })
                    return try await engine.send(request, probe: probe).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        engine.shutdown()
        #expect(statuses.count == 8 && statuses.allSatisfy { (200..<300).contains($0) }, "\(statuses)")
        let names = senders.names
        #expect(names.count == 8)
        #expect(Set(names) == ["uploader-curl", "uploader-curl-2"], "\(names)")
        for (name, digest) in sources {
            #expect(try sha256(ofFile: server.stored("datasets/d1/\(name)")) == digest, "\(name)")
        }
        #expect(await server.server.statistics.requests == 8)
        await server.stop()
    }

    @Test("shutdown fails what is in flight on every thread, and what is sent afterwards, with cancelled")
    func shutdownCancelsEverywhere() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        for i in 0..<4 { try folder.write("s\(i).jpg", size: 1 << 20, seed: UInt64(i), prefix: Magic.jpeg) }
        let items = try FileScanner().scan([folder.path]).items
        let planner = MultipartPlanner.reference(server)
        var requests: [TransferRequest] = []
        for item in items { requests.append(try await planner.request(for: [item])) }
        // 64 KiB/s: each 1 MiB body needs 16 s, so all four are still sending when the engine stops.
        let engine = CurlEngine(options: CurlEngine.Options(maxSendSpeed: 64 << 10, threads: 2))
        let probes = requests.map { _ in TransferProbe() }
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for (request, probe) in zip(requests, probes) {
                group.addTask {
                    do {
                        _ = try await engine.send(request, probe: probe)
                        return "finished"
                    } catch let error as UploadError {
                        return error.code == .cancelled ? "cancelled" : "\(error)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            try await waitUntil("all four sending") { probes.allSatisfy { $0.sent > 0 } }
            let elapsed = ContinuousClock().measure { engine.shutdown() }
            #expect(elapsed < .seconds(5))
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: "cancelled", count: 4), "\(outcomes)")
        await #expect(throws: UploadError(.cancelled)) { try await engine.send(requests[0], probe: TransferProbe()) }
        await server.stop()
    }
}

private final class ThreadNames: Sendable {
    private let list = Mutex<[String]>([])
    var names: [String] { list.withLock { $0 } }
    func add(_ name: String) { list.withLock { $0.append(name) } }
}

/// The calling thread's name as the kernel knows it (the engine names its threads through /proc).
private func currentThreadName() -> String {
    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return name.trimmingCharacters(in: .whitespacesAndNewlines)
}
