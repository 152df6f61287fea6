import Testing
import UploadDomain

@Suite("Verification")
struct VerificationTests {
    @Test("equal digests verify, whatever their case")
    func equal() {
        #expect(Verification.compare(kind: "md5", sent: "abcd", stored: "ABCD", file: "a") == .verified("md5:abcd"))
    }

    @Test("a mismatch names the file, both digests shortened, in one line")
    func mismatch() throws {
        let sent = String(repeating: "a", count: 64)
        let stored = String(repeating: "b", count: 64)
        guard
            case .failed(let error) = Verification.compare(kind: "sha256", sent: sent, stored: stored, file: "x/y.jpg")
        else {
            Issue.record("a mismatch verified")
            return
        }
        #expect(error.code == .verifyMismatch)
        #expect(
            error.description
                == "x/y.jpg: stored copy differs: expected sha256 aaaaaaaaaaaa…, the server holds bbbbbbbbbbbb…")
    }

    @Test("a multipart ETag keeps its part count when shortened")
    func multipartETag() throws {
        guard
            case .failed(let error) = Verification.compare(
                kind: "etag", sent: String(repeating: "c", count: 32) + "-3",
                stored: String(repeating: "d", count: 32) + "-3",
                file: "big.bin")
        else {
            Issue.record("a mismatch verified")
            return
        }
        #expect(error.summary == "stored copy differs: expected etag cccccccccccc…-3, the server holds dddddddddddd…-3")
    }

    @Test("a server that names no digest cannot be verified")
    func unavailable() {
        guard case .failed(let error) = Verification.unavailable("the server's answer names no sha256", file: "a.jpg")
        else { return }
        #expect(error.code == .verifyUnavailable)
        #expect(error.description == "a.jpg: cannot verify: the server's answer names no sha256")
    }
}
