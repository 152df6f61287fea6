import Foundation
import Synchronization
import Testing
import UploadData
import UploadDomain

/// Answers every request with the same canned response and records what it was asked.
final class CannedTransport: UploadTransport {
    let response: TransferResponse
    let requests = Mutex<[TransferRequest]>([])

    init(_ response: TransferResponse) {
        self.response = response
    }

    func send(_ request: TransferRequest, probe: TransferProbe) async throws -> TransferResponse {
        requests.withLock { $0.append(request) }
        return response
    }

    func setPaused(_ paused: Bool, probe: TransferProbe) {}
}

@Suite("PresignPlanner and PresignTicket")
struct PresignPlannerTests {
    let items = (0..<3).map {
        UploadItem(
            id: $0, path: "/p/\($0).jpg", relativePath: "\($0).jpg", size: 10, modified: 0, contentType: "image/jpeg")
    }

    func ticketsJSON(_ count: Int) -> String {
        let entries = (0..<count).map {
            "{\"mediaID\":\"m\($0)\",\"uploadTicket\":\"http://s/objects/k\($0)?sig=SECRET\($0)\",\"contentType\":\"image/jpeg\",\"key\":\"k\($0)\"}"
        }
        return "{\"data\":{\"items\":[" + entries.joined(separator: ",") + "]}}"
    }

    @Test("one presign request serves the batch; each PUT goes to its ticket with the type and no credentials")
    func ticketsAndPuts() async throws {
        let transport = CannedTransport(TransferResponse(status: 201, body: ticketsJSON(3)))
        let planner = PresignPlanner(
            endpoint: "http://api/presigned-urls", token: "T0KEN", headers: [], mediaType: "archive", ticketBatch: 10,
            items: items, transport: transport)
        for item in items.reversed() {
            let request = try await planner.request(for: [item])
            #expect(request.method == .put)
            #expect(request.url == "http://s/objects/k\(item.id)?sig=SECRET\(item.id)")
            #expect(request.bearerToken == nil)
            #expect(request.headers.isEmpty)
            guard case .file(_, let type) = request.body else { Issue.record("not a file body"); continue }
            #expect(type == "image/jpeg")
        }
        let asked = transport.requests.withLock { $0 }
        #expect(asked.count == 1)
        #expect(asked[0].bearerToken == "T0KEN")
        guard case .bytes(let body, "application/json") = asked[0].body else { Issue.record("not JSON"); return }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let sent = try #require(json["items"] as? [[String: Any]])
        #expect(sent.map { $0["filename"] as? String } == ["0.jpg", "1.jpg", "2.jpg"])
        #expect(
            sent.allSatisfy { $0["mediaType"] as? String == "archive" && $0["contentType"] as? String == "image/jpeg" })
        let results = planner.results(
            for: [items[1]], response: TransferResponse(status: 200, headers: ["etag": "\"e\""]))
        #expect(results[0].mediaID == "m1")
        #expect(results[0].location == "k1")
        #expect(!planner.destination(of: items[0]).contains("SECRET"))
        #expect(!planner.curlCommand(for: items[0]).contains("T0KEN"))
    }

    @Test("a 403 renews the ticket once per file, never twice")
    func renewOnce() {
        let planner = PresignPlanner(
            endpoint: "http://api/p", token: nil, headers: [], mediaType: nil, ticketBatch: 10, items: items,
            transport: CannedTransport(TransferResponse(status: 201, body: ticketsJSON(3))))
        let forbidden = UploadError(.httpStatus(403), httpStatus: 403)
        #expect(planner.renewsRequest(after: forbidden, for: items[0]))
        #expect(!planner.renewsRequest(after: forbidden, for: items[0]))
        #expect(!planner.renewsRequest(after: UploadError(.serverError, httpStatus: 500), for: items[1]))
    }

    @Test(
        "responses that do not fit are clear errors",
        arguments: [
            ("<html><body>Bad Gateway</body></html>", "presign response is not JSON"),
            ("{\"data\":{\"items\":[", "presign response is not JSON"),
            ("{\"items\":[]}", "presign response has no data.items list"),
            (
                "{\"data\":{\"items\":[{\"mediaID\":\"a\",\"contentType\":\"image/jpeg\"}]}}",
                "presign item 1 has no uploadTicket"
            ),
            (
                "{\"data\":{\"items\":[{\"mediaID\":\"a\",\"uploadTicket\":\"ftp://x\",\"contentType\":\"image/jpeg\"}]}}",
                "presign item 1 has an uploadTicket that is not a URL"
            ),
        ])
    func malformed(body: String, message: String) async {
        let item = items[0]
        let planner = PresignPlanner(
            endpoint: "http://api/p", token: nil, headers: [], mediaType: nil, ticketBatch: 1, items: [item],
            transport: CannedTransport(TransferResponse(status: 200, body: body)))
        do {
            _ = try await planner.request(for: [item])
            Issue.record("expected an error for \(body)")
        } catch {
            #expect(error.cause == message)
        }
    }

    @Test("a non-JSON answer's Content-Type is named with its control characters escaped (found by make fuzz)")
    func contentTypeEscaped() async {
        let item = items[0]
        let response = TransferResponse(
            status: 200, headers: ["content-type": "text/html\u{1B}[2J\0"], body: "<html>\u{1B}]0;x\u{07}</html>")
        let planner = PresignPlanner(
            endpoint: "http://api/p", token: nil, headers: [], mediaType: nil, ticketBatch: 1, items: [item],
            transport: CannedTransport(response))
        do {
            _ = try await planner.request(for: [item])
            Issue.record("expected an error")
        } catch {
            #expect(error.cause == "presign response is not JSON (text/html\\x1B[2J\\x00)")
            #expect(!error.forFile("a.jpg").description.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test("a response with another count is presignMismatch")
    func countMismatch() async {
        let transport = CannedTransport(TransferResponse(status: 201, body: ticketsJSON(2)))
        let planner = PresignPlanner(
            endpoint: "http://api/p", token: nil, headers: [], mediaType: nil, ticketBatch: 10, items: items,
            transport: transport)
        do {
            _ = try await planner.request(for: [items[0]])
            Issue.record("expected a mismatch")
        } catch {
            #expect(error.code == .presignMismatch)
            #expect(error.description.contains("asked for 3 upload tickets, got 2"))
        }
    }
}
