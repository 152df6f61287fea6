import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("ScreenRenderer graph")
struct ScreenRendererGraphTests {
    /// A minute that climbs to 12.3 MiB/s and settles at 8.1 MiB/s.
    static let series: [Double] =
        (0..<45).map { Double($0) / 44 * 12.3 * Double(Fixtures.mib) }
        + Array(repeating: 8.1 * Double(Fixtures.mib), count: 15)

    func state(_ size: TerminalSize) -> UIState {
        var state = UIState(size: size)
        state.rates = RateHistory(samples: Self.series)
        return state
    }

    @Test("the sparkline of a scripted minute sits under the overall bar with its peak and current rate")
    func sparkline() throws {
        for size in [TerminalSize(cols: 100, rows: 30), TerminalSize(cols: 80, rows: 24)] {
            let frame = Fixtures.render(Fixtures.uploading, size: size, state: state(size))
            expectSnapshot(frame, named: "graph-uploading-\(size)")
            let row = try #require(Layout(size: size).graphRow)
            #expect(row == Layout(size: size).aggregateRow + 1)
            let line = frame.line(row)
            #expect(line.contains("peak 12.3 MiB/s  now 8.1 MiB/s"), "\(line)")
            #expect(line.contains("█") && line.contains("▁"), "\(line)")
        }
        // 100 columns give each second a cell; 80 squeeze the minute.
        let wide = Fixtures.render(
            Fixtures.uploading, size: TerminalSize(cols: 100, rows: 30), state: state(TerminalSize(cols: 100, rows: 30))
        )
        #expect(wide.line(3).dropFirst().prefix(60).allSatisfy { "▁▂▃▄▅▆▇█ ".contains($0) })
    }

    @Test("ASCII terminals draw the graph in _.-=#")
    func ascii() {
        let size = TerminalSize(cols: 100, rows: 30)
        let frame = Fixtures.renderer(unicode: false).render(Fixtures.uploading, state(size), size: size)
        let line = frame.line(Layout(size: size).graphRow!)
        #expect(line.contains("#") && line.contains("_"), "\(line)")
        #expect(line.unicodeScalars.allSatisfy { $0.isASCII })
    }

    @Test("no graph below 50x16: at 40x12 the list keeps the row (the 40x12 goldens have no graph line)")
    func omittedWhenSmall() {
        let size = TerminalSize(cols: 40, rows: 12)
        #expect(Layout(size: size).graphRow == nil)
        #expect(!Fixtures.render(Fixtures.uploading, size: size, state: state(size)).text.contains("peak"))
    }

    @Test("before a second moves a byte the row says where the graph will come, from its left, with no dashes")
    func empty() {
        for size in [TerminalSize(cols: 100, rows: 30), TerminalSize(cols: 50, rows: 16)] {
            let line = Fixtures.render(Fixtures.uploading, size: size).line(3)
            #expect(line.hasPrefix(" throughput graph"), "\(line)")
            #expect(!line.contains("peak") && !line.contains("now —"), "\(line)")
        }
        // Seconds that moved nothing (every file failed at once) read the same.
        var idle = UIState(size: TerminalSize(cols: 100, rows: 30))
        idle.rates = RateHistory(samples: [0, 0, 0])
        #expect(
            Fixtures.render(Fixtures.uploading, size: idle.size, state: idle).line(3).hasPrefix(" throughput graph"))
        // One second recorded: the sparkline and its figures take the row.
        var state = UIState(size: TerminalSize(cols: 100, rows: 30))
        state.rates = RateHistory(samples: [1_048_576])
        let line = Fixtures.render(Fixtures.uploading, size: state.size, state: state).line(3)
        #expect(line.contains("peak 1.0 MiB/s  now 1.0 MiB/s") && !line.contains("throughput graph"), "\(line)")
    }
}
