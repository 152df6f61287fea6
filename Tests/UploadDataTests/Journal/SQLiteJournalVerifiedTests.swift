import Foundation
import Testing
import UploadDomain

@testable import UploadData

@Suite("SQLiteJournal: --verify")
struct SQLiteJournalVerifiedTests {
    let destination = "https://example.test/upload"

    @Test("a verified file keeps the digest its stored copy was found to have; a later unverified upload clears it")
    func verifiedColumn() throws {
        try withJournalFolder { folder in
            let path = folder + "/j.sqlite"
            let item = journalItem(0)
            var result = UploadResult(httpStatus: 201, body: "{}", isJSON: true, location: "up/x")
            result.verified = "sha256:ab12"
            let journal = try SQLiteJournal.open(path: path, destination: destination, arguments: "a -> b")
            defer { journal.close(counts: PhaseCounts()) }
            journal.record(JournalEntry(item: item, destination: destination, attempt: 1, outcome: .done(result)))
            #expect(journal.storedFile(path: item.path, destination: destination)?.verified == "sha256:ab12")
            journal.record(doneEntry(item, to: destination))
            #expect(journal.storedFile(path: item.path, destination: destination)?.verified == nil)
        }
    }
}
