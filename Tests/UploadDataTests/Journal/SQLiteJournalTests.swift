import Foundation
import Testing
import UploadDomain

@testable import UploadData

@Suite("SQLiteJournal")
struct SQLiteJournalTests {
    let destination = "https://example.test/upload"

    @Test("outcomes survive a reopen; another size, mtime or destination is not the same file")
    func roundTrip() throws {
        try withJournalFolder { folder in
            let path = folder + "/state/uploader-tui/journal.sqlite"
            let done = journalItem(0)
            let failed = journalItem(1)
            let started = journalItem(2)
            let cancelled = journalItem(3)
            let journal = try SQLiteJournal.open(path: path, destination: destination, arguments: "a -> b")
            journal.record(JournalEntry(item: done, destination: destination, attempt: 1, outcome: .started))
            journal.record(doneEntry(done, to: destination))
            journal.record(failedEntry(failed, to: destination))
            journal.record(JournalEntry(item: started, destination: destination, attempt: 2, outcome: .started))
            journal.record(JournalEntry(item: cancelled, destination: destination, attempt: 1, outcome: .cancelled))
            journal.flush()
            journal.close(counts: PhaseCounts())

            var info = stat()
            #expect(stat(folder + "/state", &info) == 0 && info.st_mode & 0o777 == 0o700)
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)

            let reopened = try SQLiteJournal.open(path: path, destination: destination, arguments: "a -> b")
            defer { reopened.close(counts: PhaseCounts()) }
            let probes = [
                done, failed, started, cancelled,
                changedItem(done, size: done.size + 1), changedItem(done, modified: done.modified + 0.000_001), done,
            ]
            let destinations = Array(repeating: destination, count: 6) + ["https://elsewhere.test/upload"]
            let numbered = probes.enumerated().map { index, item in
                UploadItem(
                    id: index, path: item.path, relativePath: item.relativePath, size: item.size,
                    modified: item.modified, contentType: item.contentType)
            }
            // Started and cancelled were not finished either: the dry run's `retry`.
            #expect(
                reopened.priorOutcomes(of: numbered, destinations: destinations)
                    == [0: .done, 1: .failed, 2: .failed, 3: .failed])

            let row = try #require(reopened.storedFile(path: done.path, destination: destination))
            #expect(row.phase == "done" && row.httpStatus == 201 && row.response == "{\"ok\":true}")
            #expect(row.mediaID == "m1" && row.location == "up/x" && row.error == nil && row.attempts == 1)
            let failure = try #require(reopened.storedFile(path: failed.path, destination: destination))
            #expect(failure.phase == "failed" && failure.httpStatus == 500 && failure.attempts == 3)
            #expect(failure.error == "HTTP 500 server error — boom")
        }
    }

    @Test("a journal prepared, then released (its scan failed): new, it is gone again; old, it keeps its runs")
    func preparedThenReleased() throws {
        try withJournalFolder { folder in
            let path = folder + "/j.sqlite"
            let fresh = try SQLiteJournal.prepare(path: path, destination: destination)
            // Prepared, it holds its destination: a second run to it cannot have the file.
            #expect(throws: JournalError.self) { try SQLiteJournal.prepare(path: path, destination: destination) }
            fresh.release()
            #expect(!FileManager.default.fileExists(atPath: path))

            let journal = try SQLiteJournal.prepare(path: path, destination: destination).begin(
                destination: destination, arguments: "a -> b")
            journal.close(counts: PhaseCounts())
            try SQLiteJournal.prepare(path: path, destination: destination).release()
            #expect(try SQLiteJournal.history(path: path, limit: 10).count == 1)
        }
    }

    @Test("a later state replaces the earlier one: done, then started again, is no longer done")
    func upsert() throws {
        try withJournalFolder { folder in
            let journal = try SQLiteJournal.open(path: folder + "/j.sqlite", destination: destination, arguments: "")
            defer { journal.close(counts: PhaseCounts()) }
            let item = journalItem(0)
            journal.record(doneEntry(item, to: destination))
            #expect(journal.priorOutcomes(of: [item], destinations: [destination]) == [0: .done])
            journal.record(JournalEntry(item: item, destination: destination, attempt: 4, outcome: .started))
            #expect(journal.priorOutcomes(of: [item], destinations: [destination]) == [0: .failed])
            let row = try #require(journal.storedFile(path: item.path, destination: destination))
            #expect(row.phase == "started" && row.attempts == 4 && row.httpStatus == nil && row.response == nil)
        }
    }

    @Test("paths and destinations with quotes, backslashes, newlines and accents are found")
    func awkwardNames() throws {
        try withJournalFolder { folder in
            let journal = try SQLiteJournal.open(path: folder + "/j.sqlite", destination: destination, arguments: "")
            defer { journal.close(counts: PhaseCounts()) }
            let names = ["/a/\"quoted\".jpg", "/a/back\\slash.jpg", "/a/new\nline.jpg", "/a/café 🌄.jpg", "/a/[1,2]"]
            let items = names.enumerated().map { journalItem($0.offset, path: $0.element) }
            let destinations = names.map { "s3://b/k\"\\\n\($0)" }
            for (item, destination) in zip(items, destinations) { journal.record(doneEntry(item, to: destination)) }
            let outcomes = journal.priorOutcomes(of: items, destinations: destinations)
            #expect(outcomes == Dictionary(uniqueKeysWithValues: items.map { ($0.id, .done) }))
        }
    }

    @Test("responses are cut at 64 KiB on a character boundary")
    func longResponse() throws {
        try withJournalFolder { folder in
            let journal = try SQLiteJournal.open(path: folder + "/j.sqlite", destination: destination, arguments: "")
            defer { journal.close(counts: PhaseCounts()) }
            let item = journalItem(0)
            // "é" is two bytes, so 65,536 bytes fall in the middle of one.
            journal.record(doneEntry(item, to: destination, body: "x" + String(repeating: "é", count: 40_000)))
            let row = try #require(journal.storedFile(path: item.path, destination: destination))
            #expect(row.response?.utf8.count == 65_535)
            #expect(row.response?.hasSuffix("é") == true)
        }
    }

    @Test("a file that is not SQLite is refused, named, and left byte for byte")
    func notADatabase() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let text = Data(String(repeating: "these are my notes, not a database\n", count: 200).utf8)
            try text.write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: JournalError.self) {
                try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            }
            #expect(error?.code == .notADatabase)
            #expect(
                error?.description
                    == "journal \(path): not an SQLite database; move it away, or pass --journal PATH or --no-resume")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test("a journal with damaged pages is refused as corrupt, and left as it was")
    func corrupt() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let journal = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            for id in 0..<2_000 { journal.record(failedEntry(journalItem(id), to: destination)) }
            journal.close(counts: PhaseCounts())
            try checkpoint(journalAt: path)
            // Scribble over the second half, where the files' rows went: opening never reads those pages, so
            // only the quick_check can notice.
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(bytes.count > 16 * 4096)
            for offset in stride(from: bytes.count / 8192 * 4096, to: bytes.count, by: 7) { bytes[offset] = 0xA5 }
            try bytes.write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: JournalError.self) {
                try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            }
            #expect(error?.code == .notADatabase)
            #expect(error?.description.hasPrefix("journal \(path): corrupt SQLite database (") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        }
    }

    @Test("another program's SQLite database is refused, not migrated", arguments: [0 as UInt8, 0x7F])
    func foreignDatabase(applicationByte: UInt8) throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let journal = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            journal.close(counts: PhaseCounts())
            try checkpoint(journalAt: path)
            // The header's application_id (offset 68, big-endian): none at all, or some other program's.
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes.replaceSubrange(68..<72, with: [applicationByte, 0, 0, applicationByte])
            try bytes.write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: JournalError.self) {
                try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            }
            #expect(error?.code == .notADatabase)
            #expect(error?.reason == "an SQLite database, but not an uploader-tui journal")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
            #expect(throws: JournalError.self) { try SQLiteJournal.history(path: path, limit: 1) }
        }
    }

    @Test("close syncs the run into the WAL and leaves it there; the next open reads it back")
    func closeLeavesTheWAL() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let journal = try SQLiteJournal.open(path: path, destination: destination, arguments: "a -> b")
            journal.record(doneEntry(journalItem(0), to: destination))
            var counts = PhaseCounts()
            counts.done = 1
            journal.close(counts: counts)
            var wal = stat()
            #expect(stat(path + "-wal", &wal) == 0)
            #expect(wal.st_size > 0)
            let runs = try SQLiteJournal.history(path: path, limit: 5)
            #expect(runs.count == 1)
            #expect(runs.first?.endedAt != nil)
            #expect(runs.first?.counts.done == 1)
            let reopened = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            #expect(reopened.priorOutcomes(of: [journalItem(0)], destinations: [destination]) == [0: .done])
            reopened.close(counts: PhaseCounts())
        }
    }

    @Test("a second open while the first holds the journal is refused; after close it works")
    func locked() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let first = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            let error = #expect(throws: JournalError.self) {
                try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            }
            #expect(error?.code == .locked)
            #expect(error?.description.hasPrefix("journal \(path): in use by another running uploader-tui to ") == true)
            first.close(counts: PhaseCounts())
            first.close(counts: PhaseCounts())
            let second = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            second.close(counts: PhaseCounts())
        }
    }

    @Test(
        """
        runs to different destinations share the journal, each holding its own; a delete (the whole journal) is \
        refused beside them, and a journal made by a run that gave up is kept while another uses it
        """)
    func sharedByDestinations() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let elsewhere = "https://other.test/up"
            let made = try SQLiteJournal.prepare(path: path, destination: destination)
            let other = try SQLiteJournal.open(path: path, destination: elsewhere, arguments: "")
            // The run that made the file gives up (its scan failed): the other run's journal stays.
            made.release()
            #expect(FileManager.default.fileExists(atPath: path))
            let first = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            #expect(SQLiteJournal.isInUse(path: path, destination: destination))
            #expect(SQLiteJournal.isInUse(path: path, destination: elsewhere))
            #expect(!SQLiteJournal.isInUse(path: path, destination: "https://third.test/"))
            let second = #expect(throws: JournalError.self) {
                try SQLiteJournal.prepare(path: path, destination: destination)
            }
            #expect(
                second?.description
                    == "journal \(path): in use by another running uploader-tui to \(destination); wait for the other "
                    + "run to finish, or pass --journal PATH or --no-resume")
            #expect(throws: JournalError.self) { try SQLiteJournal.prepare(path: path, destination: nil) }
            first.record(doneEntry(journalItem(0), to: destination))
            other.record(doneEntry(journalItem(1), to: elsewhere))
            first.close(counts: PhaseCounts([.done]))
            #expect(!SQLiteJournal.isInUse(path: path, destination: destination))
            other.close(counts: PhaseCounts([.done]))
            let runs = try SQLiteJournal.history(path: path, limit: 5)
            #expect(runs.map(\.destination) == [destination, elsewhere])
            #expect(runs.allSatisfy { $0.endedAt != nil && $0.counts.done == 1 })
            try SQLiteJournal.prepare(path: path, destination: nil).release()
        }
    }

    @Test("two runs to one S3 bucket at one endpoint are one destination to the lock, whatever their prefixes")
    func bucketIsTheLockKey() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let first = try SQLiteJournal.open(path: path, destination: "s3://pets/photos", arguments: "")
            for other in ["s3://pets/photos/", "S3://pets/", "s3://pets/photos/2024/"] {
                #expect(throws: JournalError.self, "\(other)") {
                    try SQLiteJournal.prepare(path: path, destination: other)
                }
            }
            #expect(SQLiteJournal.isInUse(path: path, destination: "s3://pets/other/"))
            // Another endpoint, another bucket: other stores.
            try SQLiteJournal.prepare(path: path, destination: "s3://pets/photos at http://127.0.0.1:9000").release()
            try SQLiteJournal.prepare(path: path, destination: "s3://cats/photos").release()
            first.close(counts: PhaseCounts())
        }
    }

    @Test("a journal dropped without close releases the lock and leaves its run without an end")
    func droppedWithoutClose() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            do {
                let journal = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
                journal.record(doneEntry(journalItem(0), to: destination))
                journal.flush()
            }
            let again = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            again.close(counts: PhaseCounts())
            let runs = try SQLiteJournal.history(path: path, limit: 5)
            #expect(runs.map { $0.endedAt == nil } == [false, true])
            #expect(runs.last?.counts.done == 1)
        }
    }

    @Test("a read-only folder gives the cannot-write error naming the journal", .enabled(if: getuid() != 0))
    func readOnlyFolder() throws {
        try withJournalFolder { folder in
            chmod(folder, 0o500)
            for path in [folder + "/journal.sqlite", folder + "/sub/journal.sqlite"] {
                let error = #expect(throws: JournalError.self) {
                    try SQLiteJournal.open(path: path, destination: destination, arguments: "")
                }
                #expect(error?.code == .notWritable)
                #expect(error?.description.hasPrefix("journal \(path): cannot ") == true)
                #expect(error?.description.contains("Permission denied") == true)
            }
        }
    }

    @Test("priorOutcomes answers for 10,000 files, changed ones absent")
    func tenThousand() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let items = (0..<10_000).map { journalItem($0, modified: 1_700_000_000 + Double($0) / 1_000) }
            let destinations = items.map { "s3://bucket/photos/\($0.id).jpg" }
            let journal = try SQLiteJournal.open(path: path, destination: "s3://bucket/photos", arguments: "")
            for (item, destination) in zip(items, destinations) {
                journal.record(
                    item.id % 10 == 9 ? failedEntry(item, to: destination) : doneEntry(item, to: destination))
            }
            journal.close(counts: PhaseCounts())

            let reopened = try SQLiteJournal.open(path: path, destination: "s3://bucket/photos", arguments: "")
            defer { reopened.close(counts: PhaseCounts()) }
            // Every third file changed size since.
            let probes = items.map { $0.id % 3 == 0 ? changedItem($0, size: $0.size + 1) : $0 }
            let outcomes = reopened.priorOutcomes(of: probes, destinations: destinations)
            var expected: [Int: JournalEntry.PriorOutcome] = [:]
            for item in items where item.id % 3 != 0 { expected[item.id] = item.id % 10 == 9 ? .failed : .done }
            #expect(outcomes.count == expected.count)
            #expect(outcomes == expected)
        }
    }

    @Test("5,000 records and a flush leave 5,000 rows, even before close")
    func batching() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let journal = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            defer { journal.close(counts: PhaseCounts()) }
            for id in 0..<5_000 {
                journal.record(
                    id.isMultiple(of: 2)
                        ? doneEntry(journalItem(id), to: destination)
                        : failedEntry(journalItem(id), to: destination))
            }
            journal.flush()
            // Read through a second, read-only connection: the rows are committed, not just visible to the writer.
            let run = try #require(try SQLiteJournal.history(path: path, limit: 1).first)
            #expect(run.endedAt == nil)
            #expect(run.counts.done == 2_500 && run.counts.failed == 2_500)
            #expect(run.failures.count == 2_500)
        }
    }

    @Test("unfinishedFiles lists the files whose latest outcome for this destination was not done")
    func unfinishedFiles() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let first = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            first.record(doneEntry(journalItem(0), to: destination))
            first.record(failedEntry(journalItem(1), to: destination))
            first.record(failedEntry(journalItem(2), to: destination))
            // Cancelled by a stop, and cut off by a kill before it ended.
            first.record(JournalEntry(item: journalItem(4), destination: destination, attempt: 1, outcome: .cancelled))
            first.record(JournalEntry(item: journalItem(5), destination: destination, attempt: 1, outcome: .started))
            first.close(counts: PhaseCounts())
            let elsewhere = try SQLiteJournal.open(path: path, destination: "https://other.test/", arguments: "")
            elsewhere.record(failedEntry(journalItem(3), to: "https://other.test/"))
            elsewhere.close(counts: PhaseCounts())

            // Read before the retry's run begins, as `--retry-failed` reads them.
            let prepared = try SQLiteJournal.prepare(path: path, destination: destination)
            #expect(
                try prepared.queries.unfinishedFiles(destination: destination)
                    == UnfinishedFiles(listed: ["/photos/1.jpg", "/photos/2.jpg", "/photos/4.jpg", "/photos/5.jpg"]))
            let retry = try prepared.begin(destination: destination, arguments: "")
            retry.record(doneEntry(journalItem(2), to: destination))
            retry.record(doneEntry(journalItem(4), to: destination))
            retry.record(doneEntry(journalItem(5), to: destination))
            retry.close(counts: PhaseCounts())
            let again = try SQLiteJournal.prepare(path: path, destination: destination)
            #expect(
                try again.queries.unfinishedFiles(destination: destination)
                    == UnfinishedFiles(listed: ["/photos/1.jpg"]))
            // A run cut off by a kill left no record of the files it had not reached: every file not done is one.
            do {
                let killed = try again.begin(destination: destination, arguments: "")
                killed.record(doneEntry(journalItem(6), to: destination))
                killed.flush()
            }
            let reopened = try SQLiteJournal.prepare(path: path, destination: destination)
            defer { reopened.release() }
            let afterKill = try reopened.queries.unfinishedFiles(destination: destination)
            #expect(afterKill.contains(journalItem(9)) && afterKill.contains(journalItem(1)))
            #expect(!afterKill.contains(journalItem(6)) && !afterKill.contains(journalItem(0)))
            // A file changed since that run began was no file of its batch: a plain run sends it.
            #expect(!afterKill.contains(journalItem(9, modified: Date().timeIntervalSince1970 + 60)))
        }
    }

    @Test("forgetDone forgets by destination, under image options too, and by location only on the store's origin")
    func forgetDone() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let run = try SQLiteJournal.open(path: path, destination: "batch", arguments: "")
            run.record(doneEntry(journalItem(0), to: "s3://b/p/0.jpg"))
            run.record(doneEntry(journalItem(1), to: "s3://b/p/1.jpg [2048px]"))
            // Both answered with the location `up/x`: one on the store deleted from, one elsewhere.
            run.record(doneEntry(journalItem(2), to: "http://one.test/datasets/a"))
            run.record(doneEntry(journalItem(3), to: "http://two.test/datasets/a"))
            run.close(counts: PhaseCounts())
            let prepared = try SQLiteJournal.prepare(path: path, destination: nil)
            defer { prepared.release() }
            let forgotten = try prepared.forgetDone(
                destinations: ["s3://b/p/0.jpg", "s3://b/p/1.jpg"], locations: ["up/x"],
                store: "http://one.test/objects/")
            #expect(forgotten == 3)
            let left = try prepared.queries.priorOutcomes(
                of: (0..<4).map { journalItem($0) },
                destinations: [
                    "s3://b/p/0.jpg", "s3://b/p/1.jpg [2048px]", "http://one.test/datasets/a",
                    "http://two.test/datasets/a",
                ])
            #expect(left == [3: .done])
        }
    }

    @Test("the content hash is filled in by close, only for a file still as recorded")
    func contentHash() throws {
        try withJournalFolder { folder in
            let small = folder + "/abc.txt"
            try Data("abc".utf8).write(to: URL(fileURLWithPath: small))
            // Larger than one chunk, and not a whole number of chunks.
            let large = folder + "/large.bin"
            try Data((0..<(3 << 20) + 12_345).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
                .write(to: URL(fileURLWithPath: large))
            let stale = folder + "/stale.bin"
            try Data("stale".utf8).write(to: URL(fileURLWithPath: stale))
            let items = [
                journalItem(0, existing: small), journalItem(1, existing: large),
                changedItem(journalItem(2, existing: stale), modified: 1),
            ]
            let path = folder + "/journal.sqlite"
            let journal = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            for item in items { journal.record(doneEntry(item, to: destination)) }
            journal.close(counts: PhaseCounts())

            let reopened = try SQLiteJournal.open(path: path, destination: destination, arguments: "")
            defer { reopened.close(counts: PhaseCounts()) }
            let hashes = items.map { reopened.storedFile(path: $0.path, destination: destination)?.contentHash }
            // XXH3-128 of "abc", as `xxhsum -H2` prints it.
            #expect(hashes[0] == "06b05ab6733a618578af5f94892f3950")
            #expect(hashes[1] == (try xxhsum128(large)))
            #expect(hashes[2] == nil)
        }
    }

    @Test("the multipart uploads begun for a file and key come back newest first, whatever the file is now")
    func multipart() throws {
        try withJournalFolder { folder in
            let path = folder + "/journal.sqlite"
            let item = journalItem(0, size: 50 << 20)
            let journal = try SQLiteJournal.open(path: path, destination: "s3://b/p", arguments: "")
            journal.uploadBegan("old", item: item, key: "p/0.jpg", partSize: 8 << 20, checksumAlgorithm: nil)
            journal.partFinished(uploadID: "old", number: 1, part: FinishedPart(etag: "\"o1\""))
            let touched = changedItem(item, modified: item.modified + 1)
            journal.uploadBegan("up-1", item: touched, key: "p/0.jpg", partSize: 16 << 20, checksumAlgorithm: "CRC32")
            journal.partFinished(uploadID: "up-1", number: 1, part: FinishedPart(etag: "\"e1\"", checksum: "c1="))
            journal.partFinished(uploadID: "up-1", number: 2, part: FinishedPart(etag: "\"e2\"", checksum: "c2="))
            journal.partFinished(uploadID: "up-1", number: 2, part: FinishedPart(etag: "\"e2b\"", checksum: "c2b="))
            let newer = UnfinishedUpload(
                uploadID: "up-1", size: touched.size, modified: touched.modified, partSize: 16 << 20,
                checksumAlgorithm: "CRC32",
                parts: [
                    1: FinishedPart(etag: "\"e1\"", checksum: "c1="),
                    2: FinishedPart(etag: "\"e2b\"", checksum: "c2b="),
                ])
            let older = UnfinishedUpload(
                uploadID: "old", size: item.size, modified: item.modified, partSize: 8 << 20, checksumAlgorithm: nil,
                parts: [1: FinishedPart(etag: "\"o1\"")])
            #expect(journal.unfinishedUploads(of: item, key: "p/0.jpg") == [newer, older])
            journal.close(counts: PhaseCounts())

            let reopened = try SQLiteJournal.open(path: path, destination: "s3://b/p", arguments: "")
            defer { reopened.close(counts: PhaseCounts()) }
            #expect(reopened.unfinishedUploads(of: touched, key: "p/0.jpg") == [newer, older])
            #expect(reopened.unfinishedUploads(of: item, key: "p/other.jpg").isEmpty)
            #expect(newer.continues(touched, partSize: 16 << 20, checksumAlgorithm: "CRC32"))
            #expect(!newer.continues(item, partSize: 16 << 20, checksumAlgorithm: "CRC32"))
            #expect(!newer.continues(touched, partSize: 8 << 20, checksumAlgorithm: "CRC32"))
            #expect(!newer.continues(touched, partSize: 16 << 20, checksumAlgorithm: "SHA256"))
            reopened.uploadEnded("up-1")
            #expect(reopened.unfinishedUploads(of: item, key: "p/0.jpg") == [older])
            reopened.uploadEnded("old")
            #expect(reopened.unfinishedUploads(of: item, key: "p/0.jpg").isEmpty)
        }
    }

    @Test("the default path follows XDG_STATE_HOME, else HOME")
    func defaultPath() {
        #expect(
            SQLiteJournal.defaultPath(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"])
                == "/s/uploader-tui/journal.sqlite")
        #expect(
            SQLiteJournal.defaultPath(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"])
                == "/h/.local/state/uploader-tui/journal.sqlite")
        #expect(SQLiteJournal.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/state/uploader-tui/journal.sqlite")
    }
}

/// `xxhsum -H2 FILE`'s hash: an outside implementation to check the journal's against.
func xxhsum128(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/xxhsum")
    process.arguments = ["-H2", path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}
