import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("ScreenRenderer with --verify")
struct VerifyRenderTests {
    /// Three files read back and matched, two being read back, one still answering.
    static var verifying: UploadSnapshot {
        let mib = Fixtures.mib
        var files = (0..<3).map { id in
            var result = UploadResult(httpStatus: 201, body: "{}", isJSON: true, location: "v/pet-\(id + 1).jpg")
            result.verified = "sha256:" + String(repeating: "ab", count: 32)
            return Fixtures.file(id, "pet-\(id + 1).jpg", size: 2 * mib, sent: 2 * mib, phase: .done, result: result)
        }
        files += (3..<5).map { Fixtures.file($0, "pet-\($0 + 1).jpg", size: 2 * mib, sent: 2 * mib, phase: .verifying) }
        var snapshot = Fixtures.snapshot(files, elapsed: .seconds(30))
        snapshot.progress.counts.verified = 3
        snapshot.toast = Toast(progress: snapshot.progress)
        return snapshot
    }

    @Test("rows read 'verifying', the header counts verified files, the toast says what it waits for")
    func verifyingScreen() {
        let size = TerminalSize(cols: 100, rows: 30)
        let frame = Fixtures.render(Self.verifying, size: size)
        expectSnapshot(frame, named: "verifying-\(size)")
        #expect(frame.text.contains("verifying"))
        #expect(frame.text.contains("verified 3"))
        #expect(frame.text.contains("Every byte is sent — reading back 2 stored files"))
    }

    @Test("a verified file's details name the digest its stored copy was found to have; others none")
    func verifiedDetail() {
        let size = TerminalSize(cols: 100, rows: 30)
        var state = UIState(size: size, pane: .detail)
        let verified = Fixtures.render(Self.verifying, size: size, state: state)
        #expect(verified.text.contains("Verified     sha256:abababab"), "\(verified.text)")
        state.selected = 3
        #expect(!Fixtures.render(Self.verifying, size: size, state: state).text.contains("Verified  "))
    }

    @Test("the done toast says how many files were verified; without --verify nothing changes")
    func doneToast() {
        let size = TerminalSize(cols: 100, rows: 30)
        var snapshot = Fixtures.done
        snapshot.progress.counts.verified = 8
        #expect(Fixtures.render(snapshot, size: size).text.contains("8 files uploaded, 8 verified in 1:15"))
        #expect(!Fixtures.render(Fixtures.done, size: size).text.contains("verified"))
    }
}
