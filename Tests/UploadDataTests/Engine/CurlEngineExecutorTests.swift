import Foundation
import Testing
import UploadData

/// The engine's curl thread doubles as the executor of the session's request tasks (issue 6: no thread switch
/// per finished transfer). These check where such tasks run and that stopping the engine strands none of them.
@Suite("CurlEngine as a task executor", .timeLimit(.minutes(1)))
struct CurlEngineExecutorTests {
    @Test("a task that prefers the engine's executor runs on the curl thread")
    func runsOnCurlThread() async throws {
        let engine = CurlEngine()
        let executor = try #require(engine.taskExecutor)
        let name = await Task(executorPreference: executor) { currentThreadName() }.value
        #expect(name == "uploader-curl")
        #expect(currentThreadName() != "uploader-curl")
        engine.shutdown()
    }

    @Test("shutdown called on the curl thread returns without waiting for that thread")
    func shutdownFromCurlThread() async throws {
        let engine = CurlEngine()
        let executor = try #require(engine.taskExecutor)
        // Waiting for the loop from inside it would last the whole 5 s limit of `shutdown`.
        let elapsed = await Task(executorPreference: executor) {
            ContinuousClock().measure { engine.shutdown() }
        }.value
        #expect(elapsed < .seconds(2))
    }

    @Test("after shutdown, tasks that prefer the stopped engine still run, on another thread")
    func jobsAfterShutdownRun() async throws {
        let engine = CurlEngine()
        let executor = try #require(engine.taskExecutor)
        engine.shutdown()  // from this thread: returns once the loop has ended
        let name = await Task(executorPreference: executor) { currentThreadName() }.value
        #expect(name != "uploader-curl")
    }
}

/// The calling thread's name as the kernel knows it (the engine names its thread through /proc).
private func currentThreadName() -> String {
    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return name.trimmingCharacters(in: .whitespacesAndNewlines)
}
