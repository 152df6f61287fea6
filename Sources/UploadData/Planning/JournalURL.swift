import Crypto
import Foundation
import UploadDomain

extension Redactor {
    /// The URL as the journal keys it: redacted, and when redacting hid something, followed by four bytes of the
    /// whole URL's SHA-256, so `?key=A` and `?key=B`, or `alice@` and `bob@`, are two destinations. Four bytes tell
    /// one user's URLs apart and leave a guessable secret with thousands of candidates.
    public static func journalURL(_ url: String) -> String {
        let redacted = Self.url(url)
        guard redacted != url else { return url }
        let digest = SHA256.hash(data: Data(url.utf8)).prefix(4).map { String(format: "%02x", $0) }.joined()
        return redacted + " #" + digest
    }
}
