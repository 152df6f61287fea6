import Foundation
import Testing
import UploadDomain

@testable import UploaderTUI

/// Hand-built snapshots for render and key tests.
enum Fixtures {
    static let destination = "https://api.example.com/ai/images/42"
    static let mib: Int64 = 1024 * 1024

    static func file(
        _ id: Int, _ name: String, size: Int64, sent: Int64, phase: UploadPhase, attempt: Int = 1,
        paused: Bool = false, rate: Double = 0, error: UploadError? = nil, result: UploadResult? = nil
    ) -> FileSnapshot {
        FileSnapshot(
            id: id, name: name, path: "/home/ana/Pictures/pet/" + name, destination: destination,
            curlCommand: LazyText {
                "curl -sS -X POST -H \"Authorization: Bearer $UPLOADER_TOKEN\" -F files=@/home/ana/Pictures/pet/\(name) \(destination)"
            },
            size: size, sent: sent, phase: phase, attempt: attempt, isPaused: paused, bytesPerSecond: rate,
            httpStatus: result?.httpStatus ?? error?.httpStatus, result: result, error: error)
    }

    static let serverError = UploadError(
        .serverError, file: "broken.png", httpStatus: 500, bodyExcerpt: "{\"error\":\"model queue full\"}")

    static func snapshot(
        _ files: [FileSnapshot], rate: Double = 0, eta: Duration? = nil, concurrency: Int = 4,
        elapsed: Duration = .seconds(42), bandwidthLimit: Int64? = nil
    ) -> UploadSnapshot {
        let counts = PhaseCounts(files.map(\.phase))
        var sent: Int64 = 0
        var total: Int64 = 0
        for file in files where file.phase != .skipped && file.phase != .cancelled {
            sent += file.sent
            total += file.size
        }
        let progress = BatchProgress(counts: counts, bytesSent: sent, bytesTotal: total, bytesPerSecond: rate, eta: eta)
        return UploadSnapshot(
            files: files, progress: progress, toast: Toast(progress: progress), concurrency: concurrency,
            isIdle: counts.pending == 0, elapsed: elapsed, bandwidthLimit: bandwidthLimit)
    }

    /// Eight images of seed 001, nothing sent yet.
    static var willStart: UploadSnapshot {
        snapshot(
            (0..<8).map {
                file(
                    $0, "pet-\($0 + 1).jpg", size: Int64($0 + 2) * mib, sent: 0, phase: $0 < 4 ? .willStart : .queued,
                    attempt: $0 < 4 ? 1 : 0)
            },
            elapsed: .milliseconds(300))
    }

    /// A batch in full swing: done, uploading, paused, retried, failed and queued rows.
    static var uploading: UploadSnapshot {
        snapshot(
            [
                file(
                    0, "cat-001.jpg", size: 2_516_582, sent: 2_516_582, phase: .done,
                    result: UploadResult(
                        httpStatus: 201, body: "{\"id\":\"m-1\"}", isJSON: true, location: "ai/42/cat-001.jpg")),
                file(1, "cat-002.jpg", size: 3 * mib, sent: 3 * mib, phase: .modeling),
                file(2, "dog on the beach (1).jpg", size: 8 * mib, sent: 5 * mib, phase: .uploading, rate: 1_153_434),
                file(3, "강아지-사진.jpg", size: 4 * mib, sent: mib, phase: .uploading, paused: true),
                file(
                    4, "vacation/IMG_2024_0001.HEIC", size: 12 * mib, sent: 3 * mib, phase: .uploading, attempt: 2,
                    rate: 524_288),
                file(5, "broken.png", size: 700 * 1024, sent: 0, phase: .failed, attempt: 3, error: serverError),
                file(6, "queued-1.jpg", size: 1_500_000, sent: 0, phase: .queued, attempt: 0),
                file(7, "queued-2.jpg", size: 900, sent: 0, phase: .queued, attempt: 0),
            ],
            rate: 2_202_009, eta: .seconds(9))
    }

    /// Every byte sent, responses pending.
    static var modeling: UploadSnapshot {
        snapshot(
            (0..<8).map {
                file(
                    $0, "pet-\($0 + 1).jpg", size: Int64($0 + 2) * mib, sent: Int64($0 + 2) * mib,
                    phase: $0 < 5 ? .done : .modeling)
            },
            rate: 0, eta: .zero, elapsed: .seconds(61))
    }

    /// Every file answered.
    /// `uploading` after the first Ctrl-C: the transfers in flight finish, 7 s left.
    static var stopping: UploadSnapshot {
        var snapshot = uploading
        snapshot.stopping = StopState(graceLeft: .seconds(7))
        return snapshot
    }

    static var done: UploadSnapshot {
        snapshot(
            (0..<8).map {
                file($0, "pet-\($0 + 1).jpg", size: Int64($0 + 2) * mib, sent: Int64($0 + 2) * mib, phase: .done)
            },
            elapsed: .seconds(75))
    }

    /// Done, with one failure and one cancellation.
    static var fail: UploadSnapshot {
        var files = (0..<6).map {
            file($0, "pet-\($0 + 1).jpg", size: Int64($0 + 2) * mib, sent: Int64($0 + 2) * mib, phase: .done)
        }
        files.append(file(6, "broken.png", size: 700 * 1024, sent: 0, phase: .failed, attempt: 3, error: serverError))
        files.append(file(7, "skipped-by-user.jpg", size: 2 * mib, sent: 0, phase: .cancelled))
        return snapshot(files, elapsed: .seconds(80))
    }

    static let states: [(String, UploadSnapshot)] = [
        ("willStart", willStart), ("uploading", uploading), ("modeling", modeling), ("done", done), ("fail", fail),
    ]

    static let sizes: [TerminalSize] = [
        TerminalSize(cols: 100, rows: 30), TerminalSize(cols: 80, rows: 24), TerminalSize(cols: 40, rows: 12),
    ]

    static func renderer(unicode: Bool = true, color: Bool = true) -> ScreenRenderer {
        ScreenRenderer(
            source: "~/Pictures/pet", destination: "api.example.com/ai/images/42", unicode: unicode, useColor: color)
    }

    static func render(_ snapshot: UploadSnapshot, size: TerminalSize, state: UIState? = nil, unicode: Bool = true)
        -> Frame
    {
        renderer(unicode: unicode).render(snapshot, state ?? UIState(size: size), size: size)
    }
}

/// Compares a frame's text with `Snapshots/<name>.txt`; `UPDATE_SNAPSHOTS=1` rewrites the file (and still fails).
func expectSnapshot(_ frame: Frame, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Snapshots").appendingPathComponent(name + ".txt")
    let actual = fullText(frame)
    if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
        try? actual.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("Recorded snapshot \(name); run again without UPDATE_SNAPSHOTS", sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("Missing snapshot \(url.path); record it with UPDATE_SNAPSHOTS=1", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == expected, "snapshot \(name) differs:\n\(actual)", sourceLocation: sourceLocation)
}

/// Every row at full width, ending in `|` at the right edge, so blanks and alignment count too.
func fullText(_ frame: Frame) -> String {
    (0..<frame.size.rows).map { y in
        var line = ""
        for cell in frame.row(y) where cell.width > 0 { line.append(cell.character) }
        return line + "|"
    }.joined(separator: "\n") + "\n"
}

/// The display column where `needle` starts on row `y`, counted in cells.
func column(of needle: String, in frame: Frame, row y: Int) -> Int? {
    let cells = Array(frame.row(y))
    let target = Array(needle)
    guard !target.isEmpty else { return nil }
    for start in cells.indices {
        var index = start
        var matched = 0
        while matched < target.count, index < cells.count {
            if cells[index].width == 0 { index += 1; continue }
            if cells[index].character != target[matched] { break }
            matched += 1
            index += 1
        }
        if matched == target.count, cells[start].width > 0 { return start }
    }
    return nil
}
