import Testing
import UploadDomain

@Suite("UploadJob.StateMachine")
struct UploadJobStateMachineTests {
    typealias Machine = UploadJob.StateMachine

    @Test("a clean upload passes willStart, uploading, modeling, done")
    func happyPath() {
        var machine = Machine()
        #expect(machine.phase == .queued)
        #expect(machine.start() == .startTransfer(attempt: 1))
        #expect(machine.phase == .willStart)
        #expect(machine.bytesSent() == .emit(.uploading))
        #expect(machine.bytesSent() == .none)
        #expect(machine.allSent() == .emit(.modeling))
        #expect(machine.phase == .modeling)
        #expect(machine.allSent() == .none)
        #expect(machine.succeeded() == .emit(.done))
        #expect(machine.phase == .done)
        #expect(machine.retry() == .none)
    }

    @Test("a failure the policy retries waits, then queues a second attempt")
    func retryAfterFailure() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.failed(retryAfter: .seconds(1)) == .scheduleRetry(after: .seconds(1)))
        #expect(machine.phase == .queued)
        #expect(machine.backoffElapsed() == .enqueue)
        #expect(machine.start() == .startTransfer(attempt: 2))
        #expect(machine.failed(retryAfter: nil) == .emit(.failed))
        #expect(machine.phase == .failed)
        #expect(machine.retry() == .enqueue)
        #expect(machine.start() == .startTransfer(attempt: 3))
    }

    @Test("cancel in flight asks the transport, and the torn-down transfer ends cancelled")
    func cancelInFlight() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.bytesSent()
        #expect(machine.cancel() == .cancelTransfer)
        #expect(machine.cancel() == .none)
        #expect(machine.interrupted() == .emit(.cancelled))
        #expect(machine.phase == .cancelled)
        #expect(machine.retry() == .enqueue)
    }

    @Test("a response that beats the cancel still counts as done")
    func responseWinsCancelRace() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.cancel() == .cancelTransfer)
        #expect(machine.succeeded() == .emit(.done))
    }

    @Test("cancel while queued or backing off is immediate")
    func cancelQueued() {
        var queued = Machine()
        #expect(queued.cancel() == .emit(.cancelled))
        var waiting = Machine()
        _ = waiting.start()
        _ = waiting.failed(retryAfter: .seconds(5))
        #expect(waiting.cancel() == .emit(.cancelled))
        #expect(waiting.backoffElapsed() == .none)
    }

    @Test("a batch-mate's cancel re-queues the others")
    func interruptedRequeues() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.interrupted() == .enqueue)
        #expect(machine.phase == .queued)
    }

    @Test("--verify: after the answer the file is verifying, then done or failed; a cancel tears the read-back down")
    func verifying() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.allSent() == .emit(.modeling))
        #expect(machine.verifyBegan() == .emit(.verifying))
        #expect(machine.phase == .verifying)
        #expect(machine.isInFlight)
        #expect(machine.succeeded() == .emit(.done))

        var mismatched = Machine()
        _ = mismatched.start()
        #expect(mismatched.verifyBegan() == .emit(.verifying))
        #expect(mismatched.failed(retryAfter: nil) == .emit(.failed))

        var cancelled = Machine()
        _ = cancelled.start()
        _ = cancelled.verifyBegan()
        #expect(cancelled.cancel() == .cancelTransfer)
        #expect(cancelled.verifyBegan() == .none)
        #expect(cancelled.failed(retryAfter: nil) == .emit(.cancelled))
    }
}
