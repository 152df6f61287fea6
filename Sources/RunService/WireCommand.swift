import UploadDomain

/// `UploadCommand` on the wire: `{"kind":"retry","file":3}`, `{"kind":"setBandwidthLimit","value":1048576}`.
public struct WireCommand: Codable, Sendable, Equatable {
    /// `cancel`, `cancelAll`, `stop`, `retry`, `retryAllFailed` (`retryUnfinished`, its name kept so screens and runs of
    /// other versions still understand each other), `togglePause`, `setConcurrency`,
    /// `tuneConcurrency` or `setBandwidthLimit`.
    public var kind: String
    public var file: Int?
    public var value: Int64?

    /// The wire form of `command`.
    public init(_ command: UploadCommand) {
        switch command {
        case .cancel(let file): (kind, self.file) = ("cancel", file)
        case .cancelAll: kind = "cancelAll"
        case .stop: kind = "stop"
        case .retry(let file): (kind, self.file) = ("retry", file)
        case .retryUnfinished: kind = "retryAllFailed"
        case .togglePause(let file): (kind, self.file) = ("togglePause", file)
        case .setConcurrency(let n): (kind, value) = ("setConcurrency", Int64(n))
        case .tuneConcurrency(let n): (kind, value) = ("tuneConcurrency", Int64(n))
        case .setBandwidthLimit(let limit): (kind, value) = ("setBandwidthLimit", limit)
        }
    }

    /// The command, or nil for one this version does not know (or that lacks its argument).
    public var domain: UploadCommand? {
        switch kind {
        case "cancel": file.map { .cancel(fileID: $0) }
        case "cancelAll": .cancelAll
        case "stop": .stop
        case "retry": file.map { .retry(fileID: $0) }
        case "retryAllFailed": .retryUnfinished
        case "togglePause": file.map { .togglePause(fileID: $0) }
        case "setConcurrency": value.map { .setConcurrency(Int(clamping: $0)) }
        case "tuneConcurrency": value.map { .tuneConcurrency(Int(clamping: $0)) }
        case "setBandwidthLimit": .setBandwidthLimit(value)
        default: nil
        }
    }
}
