/// Fetches a new bearer token: runs `--token-command`, or asks `--refresh-url` (seed 004).
public protocol TokenProvider: Sendable {
    /// A token to use instead of `stale` (nil when there is none yet).
    func freshToken(replacing stale: String?) async throws(UploadError) -> String
}

/// The bearer token requests carry, refreshed once for everybody when the server refuses it.
///
/// A refresh in flight is shared: transfers refused meanwhile wait for it instead of starting their own, and
/// one refused with a token older than the current one just takes the current one. A failed refresh is
/// final for the run, so a broken token command is not run once per file.
public actor TokenStore {
    private var token: String?
    private let provider: (any TokenProvider)?
    private var refreshing: SharedWork<Result<String, UploadError>>?
    private var failure: UploadError?
    /// Tokens fetched so far (the first one included when there was no initial token).
    public private(set) var fetches = 0
    /// What a failed refresh's words are redacted of: the run's other secrets and every token held so far.
    private var secrets: [String]

    /// Creates a store starting with `initial`; without a provider the token never changes.
    /// - Parameter secrets: The run's other credentials (a proxy's password), kept out of a failed refresh's words.
    public init(initial: String?, provider: (any TokenProvider)?, secrets: [String] = []) {
        token = initial.flatMap { $0.isEmpty ? nil : $0 }
        self.provider = provider
        self.secrets = secrets + (token.map { [$0] } ?? [])
    }

    /// True when a refused token can be replaced.
    public nonisolated var canRefresh: Bool { provider != nil }

    /// The token to send now; waits for a refresh in flight, and fetches the first one when there is none.
    public func current() async throws(UploadError) -> String? {
        if let refreshing { return try await refreshing.value().get() }
        if let failure { throw failure }
        if token == nil, provider != nil { return try await refresh(replacing: nil) }
        return token
    }

    /// Reports that the server refused `stale`; returns the token to try next.
    public func refused(_ stale: String?) async throws(UploadError) -> String? {
        if let refreshing { return try await refreshing.value().get() }
        if let failure { throw failure }
        guard provider != nil, token == stale else { return token }
        return try await refresh(replacing: stale)
    }

    private func refresh(replacing stale: String?) async throws(UploadError) -> String {
        guard let provider else { throw UploadError(.unauthorized) }
        // A token command's error output may quote the refused token ("rejected Bearer …"); every waiter gets the
        // redacted failure. Shorter secrets would take their letters out of every word, as in an answer.
        let known = (secrets + (stale.map { [$0] } ?? [])).filter { $0.count >= 4 }
        let work = SharedWork { () -> Result<String, UploadError> in
            do throws(UploadError) {
                return .success(try await provider.freshToken(replacing: stale))
            } catch {
                return .failure(error.redacting(known))
            }
        }
        refreshing = work
        fetches += 1
        let result = await work.value()
        refreshing = nil
        if case .failure(let error) = result, error.code == .cancelled, !Task.isCancelled {
            return try await refresh(replacing: stale)
        }
        switch result {
        case .success(let fresh):
            token = fresh
            secrets.append(fresh)
        // Given up because every request waiting for it was stopped: the next one may ask again.
        case .failure(let error) where error.code == .cancelled: break
        case .failure(let error): failure = error
        }
        return try result.get()
    }
}
