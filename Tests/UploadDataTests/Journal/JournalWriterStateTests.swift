import Dispatch
import Testing
import UploadDomain

@testable import UploadData

/// Scripts of events and the writer's next step; time is passed in, so nothing sleeps.
@Suite("JournalWriterState")
struct JournalWriterStateTests {
    let start = DispatchTime(uptimeNanoseconds: 1_000_000_000)
    let write = JournalWrite.uploadEnded(uploadID: "u")

    private func after(_ milliseconds: Int) -> DispatchTime { start + .milliseconds(milliseconds) }

    private func committed(_ step: JournalWriterState.Step) -> (count: Int, through: UInt64)? {
        guard case .commit(let writes, let through) = step else { return nil }
        return (writes.count, through)
    }

    @Test("idle: the writer sleeps without a deadline")
    func idle() {
        var state = JournalWriterState()
        guard case .wait(until: nil) = state.next(now: start, hashing: false) else {
            Issue.record("expected an open-ended wait")
            return
        }
        let waiter = state.flushWaiter()
        #expect(waiter == nil)
    }

    @Test("the first record wakes the writer, which commits the batch 50 ms later")
    func window() {
        var state = JournalWriterState()
        let first = state.enqueue(write, prompt: false)
        #expect(first)
        let second = state.enqueue(write, prompt: false)
        #expect(!second)
        guard case .wait(until: let deadline?) = state.next(now: start, hashing: false) else {
            Issue.record("expected a wait with a deadline")
            return
        }
        #expect(deadline == after(50))
        let third = state.enqueue(write, prompt: false)
        #expect(!third)
        guard case .wait = state.next(now: after(49), hashing: false) else {
            Issue.record("committed before the window closed")
            return
        }
        let batch = state.next(now: after(50), hashing: false)
        #expect(committed(batch)?.count == 3)
        let released = state.committed(through: 3, failure: nil)
        #expect(released.isEmpty)
        // The next record opens a new batch and wakes the writer again.
        let nextBatch = state.enqueue(write, prompt: false)
        #expect(nextBatch)
    }

    @Test("256 pending writes are committed at once, and the 256th wakes the writer")
    func fullBatch() {
        var state = JournalWriterState()
        var wakes = 0
        for _ in 0..<256 where state.enqueue(write, prompt: false) { wakes += 1 }
        #expect(wakes == 2)
        let full = state.next(now: start, hashing: false)
        #expect(committed(full)?.count == 256)
    }

    @Test("a flush makes the open batch go now, and its waiter is released by that commit only")
    func flush() throws {
        var state = JournalWriterState()
        _ = state.enqueue(write, prompt: false)
        _ = state.enqueue(write, prompt: false)
        let first = state.flushWaiter()
        let waiter = try #require(first)
        let step = state.next(now: start, hashing: false)
        let batch = try #require(committed(step))
        #expect(batch.count == 2 && batch.through == 2)
        _ = state.enqueue(write, prompt: false)
        let second = state.flushWaiter()
        let later = try #require(second)
        let released = state.committed(through: 2, failure: nil)
        #expect(released.count == 1 && released.first === waiter)
        let rest = state.committed(through: 3, failure: nil)
        #expect(rest.first === later)
    }

    @Test("a prompt write is committed without waiting for the window")
    func prompt() {
        var state = JournalWriterState()
        let woke = state.enqueue(write, prompt: true)
        #expect(woke)
        let batch = state.next(now: start, hashing: false)
        #expect(committed(batch)?.count == 1)
    }

    @Test("hashing runs while no batch is due, and yields to one that is")
    func hashing() {
        var state = JournalWriterState()
        guard case .hash = state.next(now: start, hashing: true) else {
            Issue.record("expected to hash")
            return
        }
        _ = state.enqueue(write, prompt: false)
        guard case .hash = state.next(now: after(10), hashing: true) else {
            Issue.record("expected to hash while the batch window is open")
            return
        }
        let batch = state.next(now: after(60), hashing: true)
        #expect(committed(batch)?.count == 1)
    }

    @Test("closing refuses records, commits what is left, hashes within the budget, then finishes")
    func closing() {
        var state = JournalWriterState()
        _ = state.enqueue(write, prompt: false)
        let first = state.beginClosing(now: start, hashBudget: .seconds(10))
        #expect(first)
        let again = state.beginClosing(now: start, hashBudget: .seconds(10))
        #expect(!again)
        let accepted = state.enqueue(write, prompt: true)
        #expect(!accepted)
        let leftover = state.next(now: start, hashing: true)
        #expect(committed(leftover)?.count == 1)
        guard case .hash = state.next(now: after(9_999), hashing: true) else {
            Issue.record("expected to hash within the budget")
            return
        }
        state.enqueueHash(HashJob(path: "/a", destination: "d", size: 1, modified: 0), contentHash: "00")
        let hashes = state.next(now: after(9_999), hashing: true)
        #expect(committed(hashes)?.count == 1)
        guard case .dropHashes = state.next(now: after(10_000), hashing: true) else {
            Issue.record("expected the rest of the hashes to be dropped")
            return
        }
        guard case .finish = state.next(now: after(10_000), hashing: false) else {
            Issue.record("expected to finish")
            return
        }
    }

    @Test("closing with the run's end: what is left and the end go in one last commit, then the writer finishes")
    func closingWithRunEnd() {
        var state = JournalWriterState()
        _ = state.enqueue(write, prompt: false)
        let end = JournalWrite.runEnded(PhaseCounts(), at: 0)
        _ = state.beginClosing(now: start, hashBudget: .seconds(10), runEnd: end)
        #expect(state.endsRun)
        guard case .commit(let writes, let through) = state.next(now: start, hashing: false) else {
            Issue.record("expected the last commit")
            return
        }
        #expect(writes.count == 2 && through == 1)
        guard case .runEnded = writes.last else {
            Issue.record("expected the run's end last")
            return
        }
        guard case .finish = state.next(now: start, hashing: false) else {
            Issue.record("expected to finish")
            return
        }
    }

    @Test("closing with the run's end: the end waits until every hash is committed")
    func runEndAfterHashes() {
        var state = JournalWriterState()
        let item = UploadItem(id: 0, path: "/a", relativePath: "a", size: 1, modified: 0, contentType: "image/png")
        let entry = JournalEntry(item: item, destination: "d", attempt: 1, outcome: .done(nil))
        let unhashed = JournalWrite.file(entry, at: 0)
        #expect(unhashed.wantsHash)
        _ = state.enqueue(unhashed, prompt: false)
        _ = state.beginClosing(now: start, hashBudget: .seconds(10), runEnd: .runEnded(PhaseCounts(), at: 0))
        // The done row goes first, alone: committing it is what queues its file for hashing.
        #expect(committed(state.next(now: start, hashing: false))?.count == 1)
        guard case .hash = state.next(now: start, hashing: true) else {
            Issue.record("expected to hash")
            return
        }
        state.enqueueHash(HashJob(path: "/a", destination: "d", size: 1, modified: 0), contentHash: "00")
        guard case .commit(let writes, _) = state.next(now: after(1), hashing: false) else {
            Issue.record("expected the last commit")
            return
        }
        guard writes.count == 2, case .hash = writes[0], case .runEnded = writes[1] else {
            Issue.record("expected the hash, then the run's end: \(writes)")
            return
        }
        guard case .finish = state.next(now: after(1), hashing: false) else {
            Issue.record("expected to finish")
            return
        }
    }

    @Test("a batch writes a file's last entry only, unless a hash for that row comes between")
    func coalescing() {
        func entry(_ path: String, _ outcome: JournalEntry.Outcome, to destination: String = "d") -> JournalWrite {
            let item = UploadItem(
                id: 0, path: path, relativePath: path, size: 1, modified: 0, contentType: "image/jpeg")
            return .file(JournalEntry(item: item, destination: destination, attempt: 1, outcome: outcome), at: 0)
        }
        func describe(_ writes: [JournalWrite]) -> [String] {
            writes.map { write in
                switch write {
                case .file(let entry, _):
                    let phase: String
                    switch entry.outcome {
                    case .started: phase = "started"
                    case .done: phase = "done"
                    case .failed: phase = "failed"
                    case .cancelled: phase = "cancelled"
                    }
                    return "\(entry.item.path)@\(entry.destination) \(phase)"
                case .hash(let job, _): return "hash \(job.path)"
                case .uploadBegan, .partFinished, .uploadEnded: return "upload"
                case .runEnded: return "end"
                }
            }
        }
        let hash = JournalWrite.hash(HashJob(path: "/c", destination: "d", size: 1, modified: 0), contentHash: "00")
        let batch = [
            entry("/a", .started), entry("/b", .started), entry("/a", .done(nil)), write,
            entry("/b", .started, to: "e"), entry("/c", .done(nil)), hash, entry("/c", .started),
            entry("/c", .cancelled), entry("/b", .cancelled),
        ]
        #expect(
            describe(JournalWrite.coalesced(batch)) == [
                "/a@d done", "upload", "/b@e started", "/c@d done", "hash /c", "/c@d cancelled", "/b@d cancelled",
            ])
        #expect(describe(JournalWrite.coalesced([])).isEmpty)
    }
}
