import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// How a read-back's refusal reads: which request got it, and whether another attempt could cure it.
@Suite("ReadBack")
struct ReadBackTests {
    func verdict(status: Int) async throws -> Verification {
        let head = TransferRequest(
            method: .head, url: "http://127.0.0.1:9/f.bin", headers: [], bearerToken: nil, body: .none)
        let transport = CannedTransport(TransferResponse(status: status, body: ""))
        guard case .verdict(let verdict) = await ReadBack.send(head, file: "f.bin", via: transport) else {
            throw CancellationError()
        }
        return verdict
    }

    @Test("a 503 fails the file, retryable, named as the read-back's; a 501 means the server cannot verify")
    func refusals() async throws {
        guard case .failed(let busy) = try await verdict(status: 503) else { throw CancellationError() }
        #expect(busy.description == "f.bin: the read-back (HEAD): HTTP 503 service unavailable")
        #expect(RetryPolicy.isRetryable(busy))
        guard case .failed(let missing) = try await verdict(status: 501) else { throw CancellationError() }
        #expect(missing.code == .verifyUnavailable)
        #expect(missing.description == "f.bin: cannot verify: the read-back (HEAD) got HTTP 501")
    }
}
