import HTTPTypes
import NIOCore
import Testing

@testable import ReferenceServer

/// The per-key rules of `Idempotency-Key`, as scripts of events and the actions they return.
@Suite("IdempotencyStore.StateMachine")
struct IdempotencyStoreStateMachineTests {
    typealias Machine = IdempotencyStore.StateMachine

    static let upload = IdempotencyStore.Scope(method: "POST", path: "/datasets/a/images")
    static let fingerprint = RequestFingerprint(method: "POST", path: "/datasets/a/images", bodySHA256: "1")
    static let other = RequestFingerprint(method: "POST", path: "/datasets/a/images", bodySHA256: "2")

    static func response(status: Int = 201, bytes: Int = 10) -> RecordedResponse {
        RecordedResponse(
            status: status, headers: [.contentType: "application/json"], body: ByteBuffer(repeating: 0x41, count: bytes)
        )
    }

    static func machine(ttl: Double = 100, capacity: Int = 10, byteBudget: Int = 1 << 20) -> Machine {
        Machine(timeToLive: ttl, capacity: capacity, byteBudget: byteBudget)
    }

    /// Begins `key` and fails the test unless it is processed as new.
    static func claim(_ machine: inout Machine, _ key: String, scope: IdempotencyStore.Scope = upload, now: Double = 0)
        throws -> IdempotencyStore.Claim
    {
        let action = machine.begin(key: key, scope: scope, now: now)
        guard case .process(let claim) = action else { throw UnexpectedAction(action: action) }
        return claim
    }

    /// `begin` did not hand out a claim.
    struct UnexpectedAction: Error {
        var action: Machine.BeginAction
    }

    @Test("a new key is processed; its 2xx answer is kept and compared on the repeat")
    func successIsRecorded() throws {
        var machine = Self.machine()
        let claim = try Self.claim(&machine, "k")
        #expect(machine.finished(claim, fingerprint: Self.fingerprint, response: Self.response(), now: 1) == .recorded)
        // The defer that follows every request finds nothing left to release.
        #expect(machine.abandoned(claim) == .none)
        let completed = IdempotencyStore.Completed(fingerprint: Self.fingerprint, response: Self.response())
        #expect(machine.begin(key: "k", scope: Self.upload, now: 2) == .compare(completed))
        #expect(machine.begin(key: "k", scope: Self.upload, now: 3) == .compare(completed))
        #expect(machine.completedCount == 1)
    }

    @Test("a repeat while the first is in flight is a conflict; after it succeeds, a compare")
    func inFlightConflicts() throws {
        var machine = Self.machine()
        let claim = try Self.claim(&machine, "k")
        #expect(machine.begin(key: "k", scope: Self.upload, now: 1) == .conflict)
        #expect(machine.begin(key: "k", scope: Self.upload, now: 2) == .conflict)
        _ = machine.finished(claim, fingerprint: Self.fingerprint, response: Self.response(), now: 3)
        guard case .compare = machine.begin(key: "k", scope: Self.upload, now: 4) else {
            Issue.record("expected compare")
            return
        }
    }

    @Test("an error or a non-2xx answer releases the key for the next attempt", arguments: [nil, 400, 500, 503])
    func failureReleases(status: Int?) throws {
        var machine = Self.machine()
        let first = try Self.claim(&machine, "k")
        if let status {
            #expect(
                machine.finished(first, fingerprint: Self.fingerprint, response: Self.response(status: status), now: 1)
                    == .released)
        } else {
            #expect(machine.abandoned(first) == .released)
        }
        #expect(machine.abandoned(first) == .none)
        let second = try Self.claim(&machine, "k", now: 2)
        #expect(second != first)
        // The first attempt's late clean-up must not free the second attempt's claim.
        #expect(machine.abandoned(first) == .none)
        #expect(machine.begin(key: "k", scope: Self.upload, now: 3) == .conflict)
        #expect(machine.completedCount == 0)
    }

    @Test("the same key on another method or path is a mismatch, in flight or done")
    func otherScopeMismatches() throws {
        var machine = Self.machine()
        let put = IdempotencyStore.Scope(method: "PUT", path: "/datasets/a/images")
        let elsewhere = IdempotencyStore.Scope(method: "POST", path: "/datasets/b/images")
        let claim = try Self.claim(&machine, "k")
        #expect(machine.begin(key: "k", scope: put, now: 1) == .mismatch)
        #expect(machine.begin(key: "k", scope: elsewhere, now: 1) == .mismatch)
        _ = machine.finished(claim, fingerprint: Self.fingerprint, response: Self.response(), now: 2)
        #expect(machine.begin(key: "k", scope: put, now: 3) == .mismatch)
        #expect(machine.begin(key: "k", scope: elsewhere, now: 3) == .mismatch)
        // Other keys are independent.
        _ = try Self.claim(&machine, "k2", scope: elsewhere, now: 3)
    }

    @Test("a kept answer is forgotten once its time to live has passed")
    func expiry() throws {
        var machine = Self.machine(ttl: 100)
        let claim = try Self.claim(&machine, "k", now: 0)
        _ = machine.finished(claim, fingerprint: Self.fingerprint, response: Self.response(), now: 10)
        guard case .compare = machine.begin(key: "k", scope: Self.upload, now: 109.9) else {
            Issue.record("forgotten before its time to live")
            return
        }
        let again = try Self.claim(&machine, "k", now: 110)
        #expect(machine.completedCount == 0)
        _ = machine.finished(again, fingerprint: Self.other, response: Self.response(), now: 111)
        #expect(machine.completedCount == 1)
    }

    @Test("over capacity the oldest kept answers are forgotten first")
    func capacityEvictsOldest() throws {
        var machine = Self.machine(capacity: 3)
        for index in 0..<5 {
            let claim = try Self.claim(&machine, "k\(index)", now: Double(index))
            _ = machine.finished(claim, fingerprint: Self.fingerprint, response: Self.response(), now: Double(index))
        }
        #expect(machine.completedCount == 3)
        for index in 2..<5 {
            guard case .compare = machine.begin(key: "k\(index)", scope: Self.upload, now: 6) else {
                Issue.record("k\(index) was forgotten")
                continue
            }
        }
        // k0 and k1 are new again; in-flight keys do not count against the capacity.
        _ = try Self.claim(&machine, "k0", now: 6)
        _ = try Self.claim(&machine, "k1", now: 6)
        #expect(machine.completedCount == 3)
    }

    @Test("over the byte budget the oldest kept answers are forgotten, but never the newest")
    func byteBudgetEvictsOldest() throws {
        var machine = Self.machine(byteBudget: 25)
        for index in 0..<3 {
            let claim = try Self.claim(&machine, "k\(index)")
            _ = machine.finished(claim, fingerprint: Self.fingerprint, response: Self.response(bytes: 10), now: 0)
        }
        #expect(machine.completedCount == 2)
        let big = try Self.claim(&machine, "big")
        _ = machine.finished(big, fingerprint: Self.fingerprint, response: Self.response(bytes: 100), now: 0)
        #expect(machine.completedCount == 1)
        guard case .compare = machine.begin(key: "big", scope: Self.upload, now: 1) else {
            Issue.record("the newest answer was dropped")
            return
        }
    }

    @Test("many keys cycling through a small capacity keep the queue and the keys in step")
    func longRun() throws {
        var machine = Self.machine(ttl: 50, capacity: 100)
        for index in 0..<5_000 {
            let now = Double(index)
            let claim = try Self.claim(&machine, "k\(index)", now: now)
            if index % 7 == 0 {
                _ = machine.abandoned(claim)
            } else {
                _ = machine.finished(claim, fingerprint: Self.fingerprint, response: Self.response(), now: now)
            }
        }
        // Only the last 50 seconds' successes are left.
        #expect(machine.completedCount == (4_950..<5_000).filter { $0 % 7 != 0 }.count)
    }
}
