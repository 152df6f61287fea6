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
    /// Uploads stalled on purpose: first body chunk read, then no reading and no answer until the
    /// client closed the connection.
    public var stalls: Int = 0
    /// Requests refused for a missing or wrong bearer token.
    public var unauthorized: Int = 0
    /// Request body bytes read on the upload routes.
    public var bytesReceived: Int = 0
    /// Upload tickets handed out by `POST /presigned-urls`.
    public var ticketsIssued: Int = 0
    /// `PUT /objects/...` requests refused for their ticket (bad signature, expired, wrong
    /// content type, too large, missing parameters).
    public var ticketsRejected: Int = 0
    /// Tokens issued by `POST /auth/refresh`.
    public var refreshes: Int = 0
    /// Requests answered with the stored answer of an earlier request with the same
    /// `Idempotency-Key` (`Idempotent-Replayed: true`), storing nothing.
    public var idempotentReplays: Int = 0
    /// Requests refused with 409 because a request with the same `Idempotency-Key` was in flight.
    public var idempotencyConflicts: Int = 0
    /// Requests refused with 422 because their `Idempotency-Key` was used before for a different
    /// request (other content, method or path).
    public var idempotencyMismatches: Int = 0
    /// How many times each file was renamed into its final place, keyed by its path relative to
    /// the server root: `datasets/<id>/<sanitised multipart filename>` (the filename may contain
    /// folders; there is no `images/` level), `files/<path>` or `objects/<key>`. A count above 1
    /// means the same path was uploaded again (the later upload replaced the earlier bytes).
    public var storedByPath: [String: Int] = [:]
    /// When the first request arrived, in seconds since 1970; `nil` until then. `make bench` reads
    /// it to time a client's start-up to its first request.
    public var firstRequestAt: Double?

    /// Creates all-zero statistics.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case requests, filesStored, faultsInjected, resets, unauthorized, bytesReceived
        case ticketsIssued, ticketsRejected, refreshes, stalls, storedByPath, firstRequestAt
        case idempotentReplays, idempotencyConflicts, idempotencyMismatches
    }

    /// Decodes counters; any missing key (e.g. from an older server) counts as zero (or empty).
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
        refreshes = try value(.refreshes)
        stalls = try value(.stalls)
        idempotentReplays = try value(.idempotentReplays)
        idempotencyConflicts = try value(.idempotencyConflicts)
        idempotencyMismatches = try value(.idempotencyMismatches)
        storedByPath = try container.decodeIfPresent([String: Int].self, forKey: .storedByPath) ?? [:]
        firstRequestAt = try container.decodeIfPresent(Double.self, forKey: .firstRequestAt)
    }

    /// Counts one more file stored at `rootRelativePath` (in both ``filesStored`` and
    /// ``storedByPath``).
    mutating func recordStored(_ rootRelativePath: String) {
        filesStored += 1
        storedByPath[rootRelativePath, default: 0] += 1
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
