import NIOConcurrencyHelpers

/// Counters describing what a ``ReferenceServer`` has done since it was created.
///
/// Served as JSON by `GET /_stats`, and readable in-process through ``ReferenceServer/statistics``.
public struct ServerStatistics: Codable, Sendable, Equatable {
    /// Requests received on any route, including rejected ones.
    public var requests: Int = 0
    /// Files renamed into their final place (multipart file parts, `PUT` bodies and objects).
    public var filesStored: Int = 0
    /// Requests answered with the injected failure status.
    public var faultsInjected: Int = 0
    /// Connections dropped on purpose without a response.
    public var resets: Int = 0
    /// Requests refused for a missing or wrong bearer token.
    public var unauthorized: Int = 0
    /// Request body bytes read on the upload routes.
    public var bytesReceived: Int = 0
    /// Upload tickets handed out by `POST /presigned-urls`.
    public var ticketsIssued: Int = 0
    /// `PUT /objects/...` requests refused for their ticket (bad signature, expired, wrong
    /// content type, too large, missing parameters).
    public var ticketsRejected: Int = 0

    /// Creates all-zero statistics.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case requests, filesStored, faultsInjected, resets, unauthorized, bytesReceived
        case ticketsIssued, ticketsRejected
    }

    /// Decodes counters; any missing key (e.g. from an older server) counts as zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func value(_ key: CodingKeys) throws -> Int { try container.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        requests = try value(.requests)
        filesStored = try value(.filesStored)
        faultsInjected = try value(.faultsInjected)
        resets = try value(.resets)
        unauthorized = try value(.unauthorized)
        bytesReceived = try value(.bytesReceived)
        ticketsIssued = try value(.ticketsIssued)
        ticketsRejected = try value(.ticketsRejected)
    }
}

/// Thread-safe accumulator behind ``ServerStatistics``; request handlers run concurrently.
final class StatisticsRecorder: Sendable {
    private let box = NIOLockedValueBox(ServerStatistics())

    var snapshot: ServerStatistics { box.withLockedValue { $0 } }

    func record(_ update: (inout ServerStatistics) -> Void) {
        box.withLockedValue { update(&$0) }
    }
}
