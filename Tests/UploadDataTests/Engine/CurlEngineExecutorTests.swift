import Foundation
import Testing
import UploadData

/// The engine's curl threads double as the executor of the session's request tasks (issue 6: no thread switch
/// per finished transfer). These check where such tasks run and that stopping the engine strands none of them.
@Suite("CurlEngine as a task executor", .timeLimit(.minutes(1)))
struct CurlEngineExecutorTests {
    @Test("a task that prefers the engine's executor runs on a curl thread, and stays on it", arguments: [1, 2])
    func runsOnCurlThread(threads: Int) async throws {
        let engine = CurlEngine(options: CurlEngine.Options(threads: threads))
        let executor = try #require(engine.taskExecutor)
        let names = await Task(executorPreference: executor) {
            var names = [currentThreadName()]
            for _ in 0..<20 {
                await Task.yield()
                names.append(currentThreadName())
            }
            return names
        }.value
        #expect(names[0].hasPrefix("uploader-curl"))
        #expect(Set(names).count == 1, "moved between threads: \(Set(names))")
        #expect(!currentThreadName().hasPrefix("uploader-curl"))
        engine.shutdown()
    }

    @Test("tasks started from elsewhere are spread over the curl threads")
    func tasksSpread() async throws {
        let engine = CurlEngine(options: CurlEngine.Options(threads: 2))
        let executor = try #require(engine.taskExecutor)
        var names: Set<String> = []
        for _ in 0..<4 { names.insert(await Task(executorPreference: executor) { currentThreadName() }.value) }
        #expect(names == ["uploader-curl", "uploader-curl-2"])
        engine.shutdown()
    }

    @Test("shutdown called on a curl thread returns without waiting for that thread")
    func shutdownFromCurlThread() async throws {
        let engine = CurlEngine(options: CurlEngine.Options(threads: 2))
        let executor = try #require(engine.taskExecutor)
        // Waiting for the loop from inside it would last the whole 5 s limit of `shutdown`.
        let elapsed = await Task(executorPreference: executor) {
            ContinuousClock().measure { engine.shutdown() }
        }.value
        #expect(elapsed < .seconds(2))
    }

    @Test("after shutdown, tasks that prefer the stopped engine still run, on another thread")
    func jobsAfterShutdownRun() async throws {
        let engine = CurlEngine(options: CurlEngine.Options(threads: 2))
        let executor = try #require(engine.taskExecutor)
        engine.shutdown()  // from this thread: returns once the loops have ended
        let name = await Task(executorPreference: executor) { currentThreadName() }.value
        #expect(!name.hasPrefix("uploader-curl"))
    }
}

/// The calling thread's name as the kernel knows it (the engine names its thread through /proc).
private func currentThreadName() -> String {
    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return name.trimmingCharacters(in: .whitespacesAndNewlines)
}
