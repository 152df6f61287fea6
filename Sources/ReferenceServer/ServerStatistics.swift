import NIOConcurrencyHelpers

/// Counters describing what a ``ReferenceServer`` has done since it was created.
///
/// Served as JSON by `GET /_stats`, and readable in-process through ``ReferenceServer/statistics``.
public struct ServerStatistics: Codable, Sendable, Equatable {
    /// Requests received on any route, including rejected ones.
    public var requests: Int = 0
    /// Files renamed into their final place (multipart file parts and `PUT` bodies).
    public var filesStored: Int = 0
    /// Requests answered with the injected failure status.
    public var faultsInjected: Int = 0
    /// Connections dropped on purpose without a response.
    public var resets: Int = 0
    /// Requests refused for a missing or wrong bearer token.
    public var unauthorized: Int = 0
    /// Request body bytes read on the upload routes.
    public var bytesReceived: Int = 0

    /// Creates all-zero statistics.
    public init() {}
}

/// Thread-safe accumulator behind ``ServerStatistics``; request handlers run concurrently.
final class StatisticsRecorder: Sendable {
    private let box = NIOLockedValueBox(ServerStatistics())

    var snapshot: ServerStatistics { box.withLockedValue { $0 } }

    func record(_ update: (inout ServerStatistics) -> Void) {
        box.withLockedValue { update(&$0) }
    }
}
