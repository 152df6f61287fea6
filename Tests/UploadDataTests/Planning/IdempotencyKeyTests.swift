import Crypto
import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// The `Idempotency-Key` a request carries: the same for the same files and place, different otherwise.
@Suite("IdempotencyKey")
struct IdempotencyKeyTests {
    private func item(
        size: Int64 = 10, modified: Double = 1_700_000_000.25, path: String = "/p/cat.jpg", name: String? = nil
    ) -> UploadItem {
        UploadItem(
            id: 0, path: path, relativePath: name ?? (path as NSString).lastPathComponent, size: size,
            modified: modified, contentType: "image/jpeg")
    }

    @Test("a quoted ut1- string of 32 hex digits; equal for equal identity, different when any part changes")
    func identity() {
        let url = "http://127.0.0.1/datasets/a/images"
        let key = IdempotencyKey.value(url: url, items: [item()])
        #expect(key.count == 38 && key.hasPrefix("\"ut1-") && key.hasSuffix("\""))
        #expect(key.dropFirst(5).dropLast().allSatisfy { "0123456789abcdef".contains($0) })
        #expect(IdempotencyKey.value(url: url, items: [item()]) == key)
        let others = [
            IdempotencyKey.value(url: url, items: [item(size: 11)]),
            IdempotencyKey.value(url: url, items: [item(modified: 1_700_000_000.26)]),
            IdempotencyKey.value(url: url, items: [item(path: "/q/cat.jpg")]),
            IdempotencyKey.value(url: url + "/", items: [item()]),
            IdempotencyKey.value(url: url, items: [item(), item(path: "/p/dog.jpg")]),
            // Sent from the parent folder, under the name a form's server stores it by.
            IdempotencyKey.value(url: url, items: [item(name: "p/cat.jpg")]),
        ]
        #expect(Set(others + [key]).count == 7)
    }

    @Test("a renewed file (its stored copy found wrong) gets a new key for each renewal; a batch with it too")
    func renewal() {
        let url = "http://127.0.0.1/datasets/a/images"
        var once = item()
        once.keyRenewal = 1
        var twice = item()
        twice.keyRenewal = 2
        let keys = [
            IdempotencyKey.value(url: url, items: [item()]),
            IdempotencyKey.value(url: url, items: [once]),
            IdempotencyKey.value(url: url, items: [twice]),
            IdempotencyKey.value(url: url, items: [item(path: "/p/dog.jpg"), once]),
            IdempotencyKey.value(url: url, items: [item(path: "/p/dog.jpg"), item()]),
        ]
        #expect(Set(keys).count == 5)
        #expect(IdempotencyKey.value(url: url, items: [once]) == keys[1], "the same renewal repeats its key")
    }

    @Test("planners add the header, keep a user's own, and add none when switched off")
    func planners() async throws {
        let url = "http://127.0.0.1/datasets/a/images"
        let header = { (request: TransferRequest) in request.headers.filter { $0.name == "Idempotency-Key" } }
        let multipart = MultipartPlanner(url: url, fileField: "file", fields: [], headers: [], token: nil, batchSize: 1)
        #expect(
            header(try await multipart.request(for: [item()])).map(\.value) == [
                IdempotencyKey.value(url: url, items: [item()])
            ])
        // Another form is another request: a server would refuse the key it saw with the first body.
        let forms = [
            MultipartPlanner(url: url, fileField: "upload", fields: [], headers: [], token: nil, batchSize: 1),
            MultipartPlanner(
                url: url, fileField: "file", fields: [FormField(name: "album", value: "pets")], headers: [], token: nil,
                batchSize: 1),
            MultipartPlanner(
                url: url, fileField: "file", fields: [FormField(name: "album", value: "cats")], headers: [], token: nil,
                batchSize: 1),
        ]
        var keys = Set(header(try await multipart.request(for: [item()])).map(\.value))
        for planner in forms { keys.formUnion(header(try await planner.request(for: [item()])).map(\.value)) }
        #expect(keys.count == 4)
        let own = [HTTPHeader(name: "idempotency-key", value: "mine")!]
        let put = PutPlanner(baseURL: "http://127.0.0.1/files/", headers: own, token: nil)
        #expect(try await put.request(for: [item()]).headers.map(\.value) == ["mine"])
        let off = PutPlanner(baseURL: "http://127.0.0.1/files/", headers: [], token: nil, idempotencyKeys: false)
        #expect(header(try await off.request(for: [item()])).isEmpty)
    }

    @Test("the key hashes the identity text as earlier versions did: a resume after an upgrade sends the same key")
    func sameDerivation() {
        let url = "http://127.0.0.1/datasets/a/images"
        let items = [item(), item(size: 2048, modified: 1_600_000_000.5, path: "/p/ünïcode dog.png")]
        var text = "uploader-tui/1\n\(url)\n"
        for item in items { text += "\(item.path)\0\(item.size)\0\(item.modified.bitPattern)\n" }
        let hex = SHA256.hash(data: Array(text.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        #expect(IdempotencyKey.value(url: url, items: items) == "\"ut1-\(hex)\"")
    }
}
