import Foundation
import UploadDomain

/// `--refresh-url URL`: POSTs to URL with the refused token as bearer; the JSON answer's `access_token` (or
/// `token`) is the new token.
public struct RefreshURLTokenProvider: TokenProvider {
    public let url: String
    public let headers: [HTTPHeader]
    private let transport: any UploadTransport

    /// Creates a provider; `transport` must be the plain one, not the token-adding wrapper.
    public init(url: String, headers: [HTTPHeader], transport: any UploadTransport) {
        self.url = url
        self.headers = headers
        self.transport = transport
    }

    public func freshToken(replacing stale: String?) async throws(UploadError) -> String {
        let request = TransferRequest(
            method: .post, url: url, headers: headers, bearerToken: stale,
            body: .bytes(Array("{}".utf8), contentType: "application/json"))
        let response: TransferResponse
        do {
            response = try await transport.send(request, probe: TransferProbe())
        } catch let error as UploadError where error.code == .cancelled {
            throw error
        } catch let error as UploadError {
            throw CommandTokenProvider.failure("POST \(Redactor.url(url)): \(error.summary)")
        } catch {
            throw CommandTokenProvider.failure("POST \(Redactor.url(url)): \(error)")
        }
        guard response.isSuccess else {
            throw CommandTokenProvider.failure("POST \(Redactor.url(url)) answered HTTP \(response.status)")
        }
        guard let token = Self.token(inJSON: response.body) else {
            throw CommandTokenProvider.failure("POST \(Redactor.url(url)) answered without access_token or token")
        }
        return token
    }

    /// The token in a refresh answer, `{"access_token": "…"}` or `{"token": "…"}`, or nil when there is none
    /// that fits on one header line.
    static func token(inJSON body: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let token = (object["access_token"] ?? object["token"]) as? String, !token.isEmpty,
            !token.contains(where: { $0.isNewline }),
            // libcurl takes header lines as C strings: a NUL would cut the token short.
            !token.unicodeScalars.contains("\0")
        else { return nil }
        return token
    }
}
