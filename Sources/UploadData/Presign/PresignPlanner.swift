import Foundation
import Synchronization
import UploadDomain

/// Seed 000: ask the API for presigned URLs for a batch of files, then PUT each file straight to its URL
/// with the returned Content-Type and no Authorization header.
public final class PresignPlanner: RequestPlanner {
    private struct State {
        var tickets: [Int: PresignTicket] = [:]
        /// What each ticket was asked for: a file sent under another name, type or size needs its own.
        var askedFor: [Int: Asked] = [:]
        /// In-flight ticket requests, shared by every file they cover.
        var fetches: [String: SharedWork<Result<[Int: (ticket: PresignTicket, asked: Asked)], UploadError>>] = [:]
        /// Files whose next ticket must be fetched alone (the last one expired).
        var renewing: Set<Int> = []
        /// Files that already had one fresh ticket.
        var renewed: Set<Int> = []
    }

    public let endpoint: String
    public let token: String?
    public let headers: [HTTPHeader]
    public let mediaType: String?
    public let ticketBatch: Int
    public var batchSize: Int { 1 }
    private let items: [UploadItem]
    /// Files that may be sent as a prepared copy: left out of batch requests, each asks alone once it is ready.
    private let mayBePrepared: Set<Int>
    private let transport: any UploadTransport
    private let state = Mutex(State())
    private let destination: String

    /// Creates a planner for `items` (the session's, in input order).
    /// - Parameters:
    ///   - ticketBatch: files per presign request (`--presign-batch`).
    ///   - imageOptions: the run's; the images they may change ask for their ticket alone, once prepared, since one
    ///     asked for with the original would name the original's name, type and size.
    public init(
        endpoint: String, token: String?, headers: [HTTPHeader], mediaType: String?, ticketBatch: Int,
        items: [UploadItem], transport: any UploadTransport, imageOptions: ImageOptions = ImageOptions()
    ) {
        self.endpoint = endpoint
        self.token = token
        self.headers = headers
        self.mediaType = mediaType
        self.ticketBatch = max(1, ticketBatch)
        self.items = items
        mayBePrepared =
            imageOptions.changesNothing
            ? [] : Set(items.filter { VipsImagePreparer.imageType(of: $0) != nil }.map(\.id))
        self.transport = transport
        destination = Self.destination(endpoint: endpoint)
    }

    public func destination(of item: UploadItem) -> String { destination }

    /// A ticket request's failure is said as such: the cause starts so.
    private static let ticketRequest = "presign request to "

    /// Every ticket is asked of the one endpoint with the same credentials: its refusal would meet every file. A
    /// PUT's failure is its own URL's.
    public func failsEveryFile(_ error: UploadError) -> Bool {
        error.cause?.hasPrefix(Self.ticketRequest) == true && error.refusesTheEndpoint
    }

    /// The media type picks where the API stores a file: a rerun with another one sends the files again.
    public func journalDestination(of item: UploadItem) -> String {
        Self.journalDestination(endpoint: endpoint, mediaType: mediaType)
    }

    /// Where files go, as said to the user: the ticket endpoint, its secrets redacted.
    public static func destination(endpoint: String) -> String { "presigned via " + Redactor.url(endpoint) }

    /// How the journal names where `endpoint`'s tickets put files of `mediaType`; a dry run reads it so too.
    public static func journalDestination(endpoint: String, mediaType: String?) -> String {
        let destination = destination(endpoint: endpoint)
        return mediaType.map { destination + " (mediaType \($0))" } ?? destination
    }

    public func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
        let item = items[0]
        let ticket = try await ticket(for: item)
        // No bearer token and no user headers: the signature in the URL is the credential (seed 000).
        return TransferRequest(
            method: .put, url: ticket.uploadURL, headers: [], bearerToken: nil,
            body: .file(item, contentType: ticket.contentType))
    }

    public func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
        items.map { item in
            let ticket = state.withLock { $0.tickets[item.id] }
            var fields: [String: Any] = [:]
            fields["mediaID"] = ticket?.mediaID
            fields["key"] = ticket?.key
            fields["etag"] = response.headers["etag"]
            return UploadResult(
                httpStatus: response.status, body: CompactJSON.text(fields) ?? "{}", isJSON: true,
                location: ticket?.key,
                mediaID: ticket?.mediaID)
        }
    }

    /// The URL the file was (or will be) sent to; a secret, never printed.
    func ticketURL(for item: UploadItem) -> String? {
        state.withLock { $0.tickets[item.id]?.uploadURL }
    }

    /// A 403 on a ticket means it expired (or was refused): fetch a new one for that file, once.
    public func renewsRequest(after error: UploadError, for item: UploadItem) -> Bool {
        guard error.httpStatus == 403 else { return false }
        return state.withLock { state in
            guard state.renewed.insert(item.id).inserted else { return false }
            state.tickets[item.id] = nil
            state.renewing.insert(item.id)
            return true
        }
    }

    public func curlCommand(for item: UploadItem) -> String {
        let shownEndpoint = Redactor.url(endpoint)
        var args = ["curl", "--fail-with-body"] + ShellQuote.globoff(shownEndpoint) + ["-X", "POST"]
        args += ShellQuote.headerArguments(
            ticketRequestHeaders, hasToken: token != nil, contentType: "application/json")
        args.append("-d " + ShellQuote.quote(String(decoding: requestBody(for: [item]), as: UTF8.self)))
        args.append(ShellQuote.quote(shownEndpoint))
        // Whether the ticket's URL holds a bracket is not known here: no globs, whatever it holds.
        let put =
            "curl --fail-with-body --globoff -T \(ShellQuote.quote(item.path)) -H 'Content-Type: <contentType>' "
            + "\"$UPLOAD_TICKET\""
        return args.joined(separator: " ") + "   # then, with the returned uploadTicket: " + put
    }

    // MARK: - Tickets

    private func ticket(for item: UploadItem) async throws(UploadError) -> PresignTicket {
        typealias Fetch = SharedWork<Result<[Int: (ticket: PresignTicket, asked: Asked)], UploadError>>
        let asked = Asked(item)
        let (cached, fetch) = state.withLock { state -> (PresignTicket?, Fetch?) in
            if let ticket = state.tickets[item.id], state.askedFor[item.id] == asked { return (ticket, nil) }
            let group: [UploadItem]
            let name: String
            // A prepared image (another path, type and size than scanned) asks for its own ticket: one asked for
            // the original would store it under the original's name and type, and refuse a larger copy.
            if state.renewing.contains(item.id) || mayBePrepared.contains(item.id) || item.path != items[item.id].path
                || state.tickets[item.id] != nil
            {
                group = [item]
                name = "file-\(item.id)-\(asked.hashValue)"
            } else {
                let start = item.id / ticketBatch * ticketBatch
                group = items[start..<min(items.count, start + ticketBatch)].filter {
                    !mayBePrepared.contains($0.id) && state.tickets[$0.id] == nil
                }
                name = "batch-\(start)"
            }
            if let running = state.fetches[name] { return (nil, running) }
            let work = Fetch {
                do throws(UploadError) {
                    return .success(try await self.fetch(group))
                } catch {
                    return .failure(error)
                }
            }
            state.fetches[name] = work
            return (nil, work)
        }
        if let cached { return cached }
        let tickets: [Int: (ticket: PresignTicket, asked: Asked)]
        switch await fetch!.value() {
        case .success(let fetched): tickets = fetched
        case .failure(let error):
            // A failed request is not cached: a retry asks again.
            state.withLock { state in state.fetches = state.fetches.filter { $0.value !== fetch } }
            // Given up because the files that waited were stopped, while this one still wants its ticket.
            if error.code == .cancelled, !Task.isCancelled { return try await ticket(for: item) }
            throw error
        }
        return try state.withLock { state throws(UploadError) -> PresignTicket in
            state.fetches = state.fetches.filter { $0.value !== fetch }
            state.renewing.remove(item.id)
            for (id, fetched) in tickets where state.tickets[id] == nil || id == item.id {
                state.tickets[id] = fetched.ticket
                state.askedFor[id] = fetched.asked
            }
            guard let fetched = tickets[item.id], fetched.asked == asked else {
                throw UploadError(.presignMismatch, cause: "no upload ticket for this file")
            }
            return fetched.ticket
        }
    }

    /// The headers of a ticket request: the user's, and that a JSON answer is wanted.
    private var ticketRequestHeaders: [HTTPHeader] {
        headers + [HTTPHeader(name: "Accept", value: "application/json")!]
    }

    private func fetch(_ group: [UploadItem]) async throws(UploadError) -> [Int: (ticket: PresignTicket, asked: Asked)]
    {
        let request = TransferRequest(
            method: .post, url: endpoint, headers: ticketRequestHeaders,
            bearerToken: token, body: .bytes(requestBody(for: group), contentType: "application/json"))
        let response: TransferResponse
        do {
            response = try await transport.send(request, probe: TransferProbe())
        } catch var error as UploadError {
            // Said as the presign request's, not the file's own upload's.
            if error.code != .cancelled {
                error.cause = Self.ticketRequest + "\(Redactor.url(endpoint)): " + (error.cause ?? error.summary)
            }
            throw error
        } catch {
            throw UploadError(.cancelled)
        }
        if var error = response.error(file: nil) {
            error.cause = Self.ticketRequest + "\(Redactor.url(endpoint)) failed"
            throw error
        }
        let tickets = try PresignTicket.parse(response, expected: group.count)
        return Dictionary(uniqueKeysWithValues: zip(group, tickets).map { ($0.id, ($1, Asked($0))) })
    }

    /// What a ticket request says of a file: the ticket holds for these only.
    private struct Asked: Hashable {
        let filename: String
        let contentType: String
        let size: Int64

        init(_ item: UploadItem) {
            (filename, contentType, size) = (item.relativePath, item.contentType, item.size)
        }
    }

    private func requestBody(for group: [UploadItem]) -> [UInt8] {
        let entries: [[String: Any]] = group.map { item in
            var entry: [String: Any] = [
                "filename": item.relativePath, "contentType": item.contentType, "size": item.size,
            ]
            if let mediaType { entry["mediaType"] = mediaType }
            return entry
        }
        return Array((CompactJSON.text(["items": entries]) ?? "{}").utf8)
    }
}
