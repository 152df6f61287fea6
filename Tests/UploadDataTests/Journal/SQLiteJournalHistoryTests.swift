import Foundation
import Testing
import UploadDomain

@testable import UploadData

@Suite("SQLiteJournal history")
struct SQLiteJournalHistoryTests {
    @Test("two runs, the second unfinished: newest first, counts from the run or from its files")
    func twoRuns() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let before = Date()
            let first = try SQLiteJournal.open(path: path, destination: "https://a.test/up", arguments: "pics -> a")
            first.record(doneEntry(journalItem(0), to: "https://a.test/up"))
            first.record(failedEntry(journalItem(1), to: "https://a.test/up"))
            var counts = PhaseCounts()
            counts.done = 1
            counts.failed = 1
            counts.skipped = 4
            first.close(counts: counts)

            let second = try SQLiteJournal.open(path: path, destination: "s3://b/p", arguments: "pics -> s3")
            defer { second.close(counts: PhaseCounts()) }
            second.record(doneEntry(journalItem(0), to: "s3://b/p/0.jpg"))
            second.record(failedEntry(journalItem(3), to: "s3://b/p/3.jpg"))
            second.record(failedEntry(journalItem(2), to: "s3://b/p/2.jpg"))
            second.record(
                JournalEntry(item: journalItem(4), destination: "s3://b/p/4.jpg", attempt: 1, outcome: .started))
            second.flush()

            // Read while the second run still holds the journal.
            let runs = try SQLiteJournal.history(path: path, limit: 10)
            #expect(runs.map(\.id) == [second.runID, first.runID])
            #expect(runs.map(\.destination) == ["s3://b/p", "https://a.test/up"])
            #expect(runs.map(\.arguments) == ["pics -> s3", "pics -> a"])

            let unfinished = runs[0]
            #expect(unfinished.endedAt == nil)
            #expect(unfinished.startedAt >= before.addingTimeInterval(-1))
            #expect(unfinished.counts.done == 1 && unfinished.counts.failed == 2 && unfinished.counts.skipped == 0)
            #expect(
                unfinished.failures == [
                    RunSummary.Failure(path: "/photos/2.jpg", error: "HTTP 500 server error — boom"),
                    RunSummary.Failure(path: "/photos/3.jpg", error: "HTTP 500 server error — boom"),
                ])

            let ended = runs[1]
            let endedAt = try #require(ended.endedAt)
            #expect(endedAt >= ended.startedAt)
            #expect(ended.counts == counts)
            let failure = RunSummary.Failure(path: "/photos/1.jpg", error: "HTTP 500 server error — boom")
            #expect(ended.failures == [failure])

            #expect(try SQLiteJournal.history(path: path, limit: 1).map(\.id) == [second.runID])
        }
    }

    @Test("beginClose returns at once; closed() returns with the run's end written and the journal released")
    func closeInTwoSteps() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uploader-tui-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/journal.sqlite"
        let journal = try SQLiteJournal.open(path: path, destination: "https://a.test/up", arguments: "pics -> a")
        journal.record(doneEntry(journalItem(0), to: "https://a.test/up"))
        var counts = PhaseCounts()
        counts.done = 1
        journal.beginClose(counts: counts)
        journal.beginClose(counts: PhaseCounts())
        await journal.closed()
        #expect(journal.writeFailure == nil)

        // Released: a second run can open it, and sees the first run ended with the counts first given.
        let next = try SQLiteJournal.open(path: path, destination: "https://a.test/up", arguments: "pics -> a")
        defer { next.close(counts: PhaseCounts()) }
        let ended = try #require(try SQLiteJournal.history(path: path, limit: 2).last)
        #expect(ended.id == journal.runID && ended.endedAt != nil)
        #expect(ended.counts.done == 1)
        let prior = next.priorOutcomes(of: [journalItem(0)], destinations: ["https://a.test/up"])
        #expect(prior == [0: .done])
    }

    @Test("history of a missing file or of a non-journal says so")
    func unusable() throws {
        try withJournalFolder { folder in
            let missing = folder + "/none.sqlite"
            let error = #expect(throws: JournalError.self) { try SQLiteJournal.history(path: missing, limit: 5) }
            #expect(error?.code == .notFound)
            #expect(error?.description.hasPrefix("journal \(missing): no such file;") == true)

            let text = folder + "/notes.sqlite"
            try Data("plain text, long enough to fill a header, and then some more words".utf8)
                .write(to: URL(fileURLWithPath: text))
            let notADatabase = #expect(throws: JournalError.self) { try SQLiteJournal.history(path: text, limit: 5) }
            #expect(notADatabase?.code == .notADatabase)
            #expect(notADatabase?.description.hasSuffix("move it away, or pass --journal PATH or --no-resume") == true)
            #expect(
                notADatabase?.description(offeringNoResume: false).hasSuffix("move it away, or pass --journal PATH")
                    == true)
        }
    }
}
