/// Puts the current bearer token on every request that carries one, and reports refusals to the store.
///
/// A 401 comes back to the session as usual; by then the store holds a fresh token, so the session's
/// immediate retry goes out with it.
public struct AuthorizingTransport: UploadTransport {
    private let inner: any UploadTransport
    private let tokens: TokenStore

    /// Wraps `inner`.
    public init(_ inner: any UploadTransport, tokens: TokenStore) {
        self.inner = inner
        self.tokens = tokens
    }

    public func send(_ request: TransferRequest, probe: TransferProbe) async throws -> TransferResponse {
        guard request.bearerToken != nil else { return try await inner.send(request, probe: probe) }
        var authorized = request
        // A failed refresh may quote what the request carries (its URL's key, a secret header): redacted of them.
        do throws(UploadError) {
            authorized.bearerToken = try await tokens.current()
        } catch {
            throw error.redacting(authorized.credentials)
        }
        let response = try await inner.send(authorized, probe: probe)
        guard response.status == 401 else { return response }
        do throws(UploadError) {
            _ = try await tokens.refused(authorized.bearerToken)
        } catch {
            throw error.redacting(authorized.credentials)
        }
        return response
    }

    public func setPaused(_ paused: Bool, probe: TransferProbe) {
        inner.setPaused(paused, probe: probe)
    }

    public func setBandwidthLimit(_ bytesPerSecond: Int64?) {
        inner.setBandwidthLimit(bytesPerSecond)
    }

    public var taskExecutor: (any TaskExecutor)? { inner.taskExecutor }
}
