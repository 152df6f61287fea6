/// The batch-wide toast of seed 001, with its five states.
public enum Toast: Sendable, Equatable {
    /// Nothing sent yet.
    case willStart
    /// Bytes are pending; the fraction of bytes sent.
    case uploading(fraction: Double)
    /// Every byte is sent; responses are pending.
    case modeling
    /// Every file is done (or was already uploaded).
    case done
    /// Something failed or was cancelled and nothing is left to run.
    case fail(failed: Int, cancelled: Int)

    /// Derives the state from the batch. 100% sent is never `done`: only responses make it so.
    public init(progress: BatchProgress) {
        let counts = progress.counts
        if counts.pending == 0 {
            self =
                counts.failed + counts.cancelled > 0 ? .fail(failed: counts.failed, cancelled: counts.cancelled) : .done
        } else if counts.queued == 0, counts.preparing == 0, counts.willStart == 0, counts.uploading == 0 {
            self = .modeling
        } else if progress.bytesSent == 0, counts.modeling == 0, counts.verifying == 0, counts.done == 0 {
            self = .willStart
        } else {
            self = .uploading(fraction: progress.fraction)
        }
    }

    /// The state's name as the seed spells it.
    public var name: String {
        switch self {
        case .willStart: "willStart"
        case .uploading: "uploading"
        case .modeling: "modeling"
        case .done: "done"
        case .fail: "fail"
        }
    }
}
