import Testing

@testable import UploadDomain

@Suite("SharedWork")
struct SharedWorkTests {
    /// Work that waits for a signal: false when it came, true when the work was cancelled first.
    static func gated() -> (SharedWork<Bool>, AsyncStream<Void>.Continuation) {
        let (signal, continuation) = AsyncStream.makeStream(of: Void.self)
        let work = SharedWork {
            for await _ in signal { return false }
            return true
        }
        return (work, continuation)
    }

    /// Two tasks waiting for `work`, once both wait.
    static func twoWaiters(_ work: SharedWork<Bool>) async -> (Task<Bool, Never>, Task<Bool, Never>) {
        let first = Task { await work.value() }
        let second = Task { await work.value() }
        // Polled: the waiters register from tasks of their own.
        while work.waiting < 2 { try? await Task.sleep(for: .milliseconds(5)) }
        return (first, second)
    }

    @Test("one of two waiters cancelled: the work goes on, and both get its outcome")
    func oneCancelled() async {
        let (work, signal) = Self.gated()
        let (first, second) = await Self.twoWaiters(work)
        first.cancel()
        signal.yield()
        #expect(await first.value == false)
        #expect(await second.value == false)
    }

    @Test("every waiter cancelled: the work is cancelled")
    func allCancelled() async {
        let (work, _) = Self.gated()
        let (first, second) = await Self.twoWaiters(work)
        first.cancel()
        second.cancel()
        #expect(await first.value == true)
        #expect(await second.value == true)
    }
}
