import Foundation
import RunService
import Testing
import UploadDomain

@Suite("The run protocol's snapshot and command wire forms")
struct WireSnapshotTests {
    /// One `curl` text per row, shared by the sent and the received snapshot (LazyText compares by identity).
    let curls = (0..<4).map { index in LazyText { "curl -F file=@\(index)" } }

    func snapshot(sent: Int64 = 10, phase: UploadPhase = .uploading) -> UploadSnapshot {
        var result = UploadResult(
            httpStatus: 201, body: "{\"path\":\"a\"}", isJSON: true, location: "datasets/a.jpg", mediaID: "m1")
        result.verified = "sha256:00ff"
        let files = [
            FileSnapshot(
                id: 0, name: "a.jpg", path: "/p/a.jpg", destination: "http://h/a", curlCommand: curls[0], size: 100,
                sent: 100, phase: .done, attempt: 1, httpStatus: 201, result: result),
            FileSnapshot(
                id: 1, name: "b\nc.jpg", path: "/p/b", destination: "http://h/b", curlCommand: curls[1], size: 100,
                sent: sent, phase: phase, attempt: 2, isPaused: true, bytesPerSecond: 512),
            FileSnapshot(
                id: 2, name: "c.jpg", path: "/p/c", destination: "http://h/c", curlCommand: curls[2], size: 5,
                sent: 0, phase: .failed, attempt: 3,
                error: UploadError(
                    .httpStatus(503), file: "c.jpg", httpStatus: 503, bodyExcerpt: "busy",
                    retryAfter: 1.5)),
            FileSnapshot(
                id: 3, name: "d.heic", path: "/p/d", destination: "http://h/d", curlCommand: curls[3], size: 7,
                sent: 0, phase: .skipped, attempt: 0, skipReason: "already uploaded",
                preparation: Preparation(originalSize: 70, size: 7, width: 4, height: 3, remoteName: "d.jpg")),
        ]
        var counts = PhaseCounts(files.map(\.phase))
        counts.verified = 1
        let progress = BatchProgress(
            counts: counts, bytesSent: 100 + sent, bytesTotal: 212, bytesPerSecond: 512, eta: .seconds(3),
            bytesSaved: 63, etaRange: EtaRange(low: .seconds(2), high: .seconds(5)))
        return UploadSnapshot(
            files: files, progress: progress, toast: Toast(progress: progress), concurrency: 3,
            concurrencyIsAuto: true, transfersInFlight: 2, isIdle: false,
            elapsed: .milliseconds(1500), stopping: StopState(graceLeft: .seconds(2)), bandwidthLimit: 1 << 20)
    }

    /// Through a line of the protocol and back.
    func roundTrip(_ wire: WireSnapshot) throws -> WireSnapshot {
        var line = RunLine(.snapshot)
        line.snapshot = wire
        let data = line.encoded()
        #expect(data.last == 0x0A && data.dropLast().firstIndex(of: 0x0A) == nil, "one message is one line")
        return try #require(try RunLine.decode(data.dropLast()).snapshot)
    }

    func expectSame(_ a: UploadSnapshot, _ b: UploadSnapshot) {
        #expect(a.files == b.files)
        #expect(a.progress == b.progress)
        #expect(a.toast == b.toast)
        #expect(a.concurrency == b.concurrency)
        #expect(a.concurrencyIsAuto == b.concurrencyIsAuto && a.transfersInFlight == b.transfersInFlight)
        #expect(a.bandwidthLimit == b.bandwidthLimit)
        #expect(a.isIdle == b.isIdle)
        #expect(a.elapsed == b.elapsed)
        #expect(a.stopping == b.stopping)
        #expect(a.unreachable == b.unreachable)
        #expect(a.batchStop == b.batchStop)
    }

    @Test("a full snapshot arrives whole: rows, errors, results, preparations, counts, toast, stop")
    func fullRoundTrip() throws {
        var sent = snapshot()
        sent.unreachable = Unreachable(gone: .milliseconds(12_345), patienceLeft: .seconds(137))
        sent.batchStop = BatchStop(file: "c.jpg", error: "HTTP 401 unauthorized", everyFile: false)
        let received = try #require(try roundTrip(WireSnapshot(sent)).applied(to: [], curl: { curls[$0] }))
        expectSame(sent, received)
        #expect(received.unreachable != nil && received.batchStop != nil)
        #expect(received.files[2].error?.code == .httpStatus(503))
        #expect(received.files[0].result?.verified == "sha256:00ff")
    }

    @Test("a 401 keeps the place its token came from, so an attached screen gives the run's hint")
    func unauthorizedRoundTrip() throws {
        var sent = snapshot()
        sent.files[2].error = UploadError(
            .unauthorized, file: "c.jpg", httpStatus: 401, tokenOrigin: "token of profile pets, config.toml:3")
        let received = try #require(try roundTrip(WireSnapshot(sent)).applied(to: [], curl: { curls[$0] }))
        #expect(received.files[2].error == sent.files[2].error)
        #expect(received.files[2].error?.description.hasSuffix("(check token of profile pets, config.toml:3)") == true)
    }

    @Test("a delta carries only the rows that changed, and applied to the old rows gives the new snapshot")
    func delta() throws {
        let old = snapshot(sent: 10)
        let new = snapshot(sent: 60, phase: .modeling)
        let changed = try #require(WireSnapshot.changedRows(from: old.files, to: new.files))
        #expect(changed == [1])
        let wire = try roundTrip(WireSnapshot(new, changed: changed))
        #expect(!wire.full && wire.rows.map(\.index) == [1])
        let received = try #require(wire.applied(to: old.files, curl: { curls[$0] }))
        expectSame(new, received)
    }

    @Test("a delta for a list of another length is refused, not half applied")
    func deltaMismatch() {
        let new = snapshot()
        let wire = WireSnapshot(new, changed: [1])
        #expect(wire.applied(to: Array(new.files.prefix(2)), curl: { curls[$0] }) == nil)
        #expect(WireSnapshot.changedRows(from: Array(new.files.prefix(2)), to: new.files) == nil)
    }

    @Test("every command survives the wire; an unknown one reads as nothing")
    func commands() throws {
        let all: [UploadCommand] = [
            .cancel(fileID: 3), .cancelAll, .stop, .retry(fileID: 1), .retryUnfinished, .togglePause(fileID: 2),
            .setConcurrency(7), .tuneConcurrency(9), .setBandwidthLimit(2 << 20), .setBandwidthLimit(nil),
        ]
        for command in all {
            var line = RunLine(.command)
            line.command = WireCommand(command)
            let decoded = try RunLine.decode(line.encoded().dropLast())
            #expect(decoded.command?.domain == command)
        }
        let unknown = try RunLine.decode(Data(#"{"type":"command","command":{"kind":"explode"}}"#.utf8))
        #expect(unknown.command?.domain == nil)
    }

    @Test("a hello's version is read even when the rest of it is of another version")
    func helloVersion() throws {
        let ours = RunLine.clientHello(.screen).encoded().dropLast()
        #expect(RunLine.helloVersion(ours) == RunProtocol.version)
        let future = Data(#"{"type":"hello","version":2,"run":{"id":7,"shape":"new"}}"#.utf8)
        #expect(RunLine.helloVersion(future) == 2)
        #expect((try? RunLine.decode(future)) == nil)
        #expect(RunLine.helloVersion(Data(#"{"type":"snapshot","version":1}"#.utf8)) == nil)
        #expect(RunLine.helloVersion(Data("not json".utf8)) == nil)
    }

    @Test("a run's record reads running while files move, and how the batch ended once every file has")
    func recordState() {
        func counts(done: Int, failed: Int, cancelled: Int, queued: Int) -> PhaseCounts {
            var counts = PhaseCounts()
            (counts.done, counts.failed, counts.cancelled, counts.queued) = (done, failed, cancelled, queued)
            return counts
        }
        func state(_ counts: PhaseCounts, idle: Bool) -> String {
            let progress = BatchProgress(counts: counts, bytesSent: 0, bytesTotal: 0, bytesPerSecond: 0, eta: nil)
            let snapshot = UploadSnapshot(
                files: [], progress: progress, toast: Toast(progress: progress), concurrency: 1, isIdle: idle,
                elapsed: .zero)
            return RunInfo(id: "ab12", pid: 1, source: "/s", destination: "http://h/", started: 1)
                .updated(from: snapshot).state
        }
        #expect(state(counts(done: 1, failed: 0, cancelled: 0, queued: 3), idle: false) == "running")
        #expect(state(counts(done: 0, failed: 0, cancelled: 0, queued: 0), idle: true) == "running")
        #expect(state(counts(done: 4, failed: 0, cancelled: 0, queued: 0), idle: true) == "done")
        #expect(state(counts(done: 3, failed: 1, cancelled: 0, queued: 0), idle: true) == "failed")
        #expect(state(counts(done: 3, failed: 0, cancelled: 1, queued: 0), idle: true) == "stopped")
    }

    @Test("a run that waits only for a paused file reads paused, with the count; one that moves besides reads running")
    func pausedState() {
        func info(_ rows: [(UploadPhase, Bool)]) -> RunInfo {
            let files = rows.enumerated().map { index, row in
                FileSnapshot(
                    id: index, name: "f\(index)", path: "/p/f\(index)", destination: "http://h/", size: 10,
                    sent: row.0 == .done ? 10 : 5, phase: row.0, attempt: 1, isPaused: row.1)
            }
            let progress = BatchProgress(
                counts: PhaseCounts(files.map(\.phase)), bytesSent: 0, bytesTotal: 0, bytesPerSecond: 0, eta: nil)
            let snapshot = UploadSnapshot(
                files: files, progress: progress, toast: Toast(progress: progress), concurrency: 2, isIdle: false,
                elapsed: .zero)
            return RunInfo(id: "ab12", pid: 1, source: "/s", destination: "http://h/", started: 1)
                .updated(from: snapshot)
        }
        let waiting = info([(.done, false), (.uploading, true)])
        #expect(waiting.state == "paused" && waiting.paused == 1)
        let moving = info([(.uploading, false), (.uploading, true)])
        #expect(moving.state == "running" && moving.paused == 1)
    }
}
