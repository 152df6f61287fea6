/// Where one file stands. `preparing`: an image being resized or re-encoded before its turn; `modeling`: every
/// byte is sent and the server has not answered yet; `verifying`: the server answered and what it stored is being
/// read back (`--verify`).
public enum UploadPhase: String, Sendable, CaseIterable {
    case queued
    case preparing
    case willStart
    case uploading
    case modeling
    case verifying
    case done
    case failed
    case cancelled
    case skipped

    /// True once nothing more will happen to the file without a retry.
    public var isFinal: Bool {
        switch self {
        case .done, .failed, .cancelled, .skipped: true
        case .queued, .preparing, .willStart, .uploading, .modeling, .verifying: false
        }
    }

    /// True while a request for the file is in flight.
    public var isActive: Bool {
        switch self {
        case .willStart, .uploading, .modeling, .verifying: true
        default: false
        }
    }
}
