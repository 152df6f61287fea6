import Testing
import UploadDomain

@Suite("Toast")
struct ToastTests {
    func progress(_ phases: [UploadPhase], sent: Int64, total: Int64) -> BatchProgress {
        BatchProgress(counts: PhaseCounts(phases), bytesSent: sent, bytesTotal: total, bytesPerSecond: 0, eta: nil)
    }

    @Test("the five states follow the batch")
    func states() {
        #expect(Toast(progress: progress([.queued, .willStart], sent: 0, total: 100)) == .willStart)
        #expect(Toast(progress: progress([.queued, .uploading], sent: 25, total: 100)) == .uploading(fraction: 0.25))
        #expect(Toast(progress: progress([.modeling, .done], sent: 100, total: 100)) == .modeling)
        #expect(Toast(progress: progress([.done, .skipped], sent: 100, total: 100)) == .done)
        #expect(Toast(progress: progress([.done, .failed], sent: 50, total: 100)) == .fail(failed: 1, cancelled: 0))
        #expect(Toast(progress: progress([.cancelled], sent: 0, total: 0)) == .fail(failed: 0, cancelled: 1))
    }

    @Test("every byte sent is modeling, not done, until the responses arrive")
    func allSentIsNotDone() {
        let toast = Toast(progress: progress([.modeling, .modeling], sent: 100, total: 100))
        #expect(toast == .modeling)
        #expect(toast != .done)
    }

    @Test("a batch cancelled whole is at 0%, not complete; one done or skipped whole is at 100%")
    func nothingToSend() {
        #expect(progress([.cancelled, .cancelled], sent: 0, total: 0).fraction == 0)
        #expect(progress([.skipped, .cancelled], sent: 0, total: 0).fraction == 1)
        #expect(progress([.done], sent: 0, total: 0).fraction == 1)
    }

    @Test("one file failing while others still run keeps the batch uploading")
    func failureWithWorkLeft() {
        #expect(Toast(progress: progress([.failed, .uploading], sent: 10, total: 100)) == .uploading(fraction: 0.1))
    }
}
