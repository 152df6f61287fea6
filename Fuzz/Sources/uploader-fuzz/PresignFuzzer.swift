import Foundation
import UploadDomain

@testable import UploadData

/// `PresignTicket.parse` on a fuzzed answer.
///
/// Input: one byte for the number of tickets asked for (1 to 4), one for the length of a `Content-Type` header
/// (low five bits; 0 means none), that header, then the body. Tickets returned must be as many as asked for, each
/// with an http(s) URL, a content type that can be sent as a header and a media ID; an error's one-line description
/// must be safe to print on a terminal.
enum PresignFuzzer {
    static func run(_ input: [UInt8]) {
        var reader = FuzzInput(input)
        let expected = 1 + Int(reader.byte() % 4)
        let typeLength = Int(reader.byte() & 31)
        let contentType = typeLength == 0 ? nil : reader.bytes(typeLength).text
        let body = reader.rest().text
        let response = TransferResponse(
            status: 200, headers: contentType.map { ["content-type": $0] } ?? [:], body: body)
        do {
            let tickets = try PresignTicket.parse(response, expected: expected)
            require(tickets.count == expected, "\(tickets.count) tickets for \(expected)")
            for ticket in tickets {
                let scheme = URLComponents(string: ticket.uploadURL)?.scheme?.lowercased()
                require(scheme == "http" || scheme == "https", "ticket URL \(ticket.uploadURL.debugDescription)")
                require(
                    HTTPHeader(name: "Content-Type", value: ticket.contentType) != nil,
                    "content type \(ticket.contentType.debugDescription)")
                require(!ticket.mediaID.isEmpty, "empty media ID")
            }
        } catch {
            TerminalSafety.require(error.description, "presign error")
            TerminalSafety.require(error.forFile("a.jpg").description, "presign error for a file")
        }
    }
}
