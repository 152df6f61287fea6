import Foundation
import Synchronization
import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("Preview")
struct PreviewTests {
    static let red = RGB(255, 0, 0)
    static let green = RGB(0, 255, 0)
    static let blue = RGB(0, 0, 255)
    static let white = RGB(255, 255, 255)

    /// The 4×4 picture the libvips test decodes from a PNG: red, green / blue, white quadrants.
    static let quadrants: Thumbnail = {
        let top = [red, red, green, green]
        let bottom = [blue, blue, white, white]
        let pixels = top + top + bottom + bottom
        return Thumbnail(width: 4, height: 4, rgb: pixels.flatMap { [$0.red, $0.green, $0.blue] })!
    }()

    func renderer(_ depth: ColorDepth?, unicode: Bool = true) -> ScreenRenderer {
        ScreenRenderer(
            source: "~/Pictures/pet", destination: "api.example.com/ai/images/42", unicode: unicode, colorDepth: depth)
    }

    /// Every `▀` cell of `frame` with its colours, row by row.
    func pixelCells(_ frame: Frame) -> [[PixelColors]] {
        (0..<frame.size.rows).compactMap { y in
            let row = frame.row(y).compactMap { $0.character == "▀" ? $0.style.pixels : nil }
            return row.isEmpty ? nil : row
        }
    }

    @Test("a known 4×4 picture is 4×2 half blocks: upper pixel in front, lower behind, in 24-bit colour")
    func trueColorCells() throws {
        let size = TerminalSize(cols: 100, rows: 30)
        var state = UIState(size: size, pane: .detail)
        state.preview = .ready(Self.quadrants)
        let frame = renderer(.trueColor).render(Fixtures.uploading, state, size: size)
        let cells = pixelCells(frame)
        let rgb = { (color: RGB) in TerminalColor.rgb(color) }
        #expect(cells.count == 2)
        #expect(
            cells[0] == [.init(upper: rgb(Self.red), lower: rgb(Self.red))] + [
                .init(upper: rgb(Self.red), lower: rgb(Self.red)),
                .init(upper: rgb(Self.green), lower: rgb(Self.green)),
                .init(upper: rgb(Self.green), lower: rgb(Self.green)),
            ])
        #expect(cells[1].map(\.upper) == [rgb(Self.blue), rgb(Self.blue), rgb(Self.white), rgb(Self.white)])
        #expect(cells[1].map(\.lower) == cells[1].map(\.upper))
        // The curl command's lines start below the picture's box, so they stay whole for a mouse selection.
        let curl = try #require((0..<size.rows).first { frame.line($0).contains("curl -sS") })
        #expect(curl > Layout(size: size).toastRow + Thumbnail.box.rows)
    }

    @Test("256 colours: each pixel becomes its palette entry; an odd last row leaves the lower half to the terminal")
    func paletteCells() {
        let size = TerminalSize(cols: 100, rows: 30)
        var state = UIState(size: size, pane: .detail)
        let odd = Thumbnail(
            width: 2, height: 3, rgb: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0])!
        state.preview = .ready(odd)
        let cells = pixelCells(renderer(.palette256).render(Fixtures.uploading, state, size: size))
        #expect(cells.count == 2)
        #expect(cells[0][0] == PixelColors(upper: .indexed(196), lower: .indexed(21)))
        #expect(cells[0][1] == PixelColors(upper: .indexed(46), lower: .indexed(231)))
        #expect(cells[1][0] == PixelColors(upper: .indexed(16), lower: nil))
    }

    @Test("the palette maps the cube's corners and greys exactly and picks the nearest otherwise")
    func palette() {
        #expect(Palette256.index(of: RGB(0, 0, 0)) == 16)
        #expect(Palette256.index(of: RGB(255, 255, 255)) == 231)
        #expect(Palette256.index(of: RGB(95, 135, 175)) == 16 + 36 * 1 + 6 * 2 + 3)
        #expect(Palette256.index(of: RGB(128, 128, 128)) == 244)
        for index in UInt8(16)...UInt8(255) {
            let rgb = Palette256.rgb(of: index)
            #expect(Palette256.rgb(of: Palette256.index(of: rgb)) == rgb, "entry \(index)")
        }
    }

    @Test("colour depth from the environment: COLORTERM truecolor or 24bit, else 256; none for NO_COLOR or ASCII")
    func depthFromEnvironment() {
        #expect(ColorDepth.of(environment: ["COLORTERM": "truecolor"], unicode: true, color: true) == .trueColor)
        #expect(ColorDepth.of(environment: ["COLORTERM": "24bit"], unicode: true, color: true) == .trueColor)
        #expect(ColorDepth.of(environment: [:], unicode: true, color: true) == .palette256)
        #expect(ColorDepth.of(environment: ["COLORTERM": "yes"], unicode: true, color: true) == .palette256)
        #expect(
            ColorDepth.of(environment: ["COLORTERM": "truecolor", "NO_COLOR": "1"], unicode: true, color: true) == nil)
        #expect(ColorDepth.of(environment: ["NO_COLOR": ""], unicode: true, color: true) == .palette256)
        #expect(ColorDepth.of(environment: ["COLORTERM": "truecolor"], unicode: false, color: true) == nil)
        #expect(ColorDepth.of(environment: [:], unicode: true, color: false) == nil)
        // A renderer without UTF-8 or colours draws no picture even when given a depth.
        let size = TerminalSize(cols: 100, rows: 30)
        var state = UIState(size: size, pane: .detail)
        state.preview = .ready(Self.quadrants)
        #expect(pixelCells(renderer(.trueColor, unicode: false).render(Fixtures.uploading, state, size: size)).isEmpty)
    }

    @Test("from 120 columns the preview sits beside the list, which narrows; a placeholder until the picture is made")
    func beside() throws {
        let size = TerminalSize(cols: 130, rows: 30)
        var state = UIState(size: size)
        state.preview = .loading
        let loading = renderer(.trueColor).render(Fixtures.uploading, state, size: size)
        let listTop = Layout(size: size).listTop
        #expect(fullText(loading).contains("loading preview…"))
        #expect(loading.line(Layout(size: size).columnHeaderRow).contains("Preview"))
        // The list's TRY column ends before the preview's box.
        let boxX = size.cols - ScreenRenderer.sidePreviewWidth + 1
        let tryColumn = try #require(column(of: "TRY", in: loading, row: Layout(size: size).columnHeaderRow))
        #expect(tryColumn + 3 < boxX)
        #expect(loading[boxX, listTop].character == "│")
        state.preview = .ready(Self.quadrants)
        let ready = renderer(.trueColor).render(Fixtures.uploading, state, size: size)
        #expect(pixelCells(ready).count == 2)
        #expect(!fullText(ready).contains("loading preview"))
        // Below 120 columns the list keeps the whole width.
        let narrow = TerminalSize(cols: 100, rows: 30)
        var small = UIState(size: narrow)
        small.preview = .ready(Self.quadrants)
        #expect(pixelCells(renderer(.trueColor).render(Fixtures.uploading, small, size: narrow)).isEmpty)
    }
}

/// A source that counts its decodes and answers with a fixed picture, for the cache's tests.
final class CountingSource: ThumbnailSource {
    let calls = Mutex(0)
    let picture: Thumbnail?

    init(picture: Thumbnail?) {
        self.picture = picture
    }

    func thumbnail(path: String, maxWidth: Int, maxHeight: Int) -> Thumbnail? {
        calls.withLock { $0 += 1 }
        return picture
    }
}

@Suite("ThumbnailCache")
struct ThumbnailCacheTests {
    /// Asks until the preview is no longer loading, up to 60 s: the worker runs at a lower priority than everything
    /// else, and in the full suite on two cores libvips' own threads kept it waiting for over 10 s.
    func settled(_ cache: ThumbnailCache, _ path: String, size: Int64) async throws -> Preview {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let preview = cache.preview(path: path, size: size)
            if preview != .loading { return preview }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("the preview of \(path) was never made")
        return .loading
    }

    func scratchFile() throws -> String {
        let path = NSTemporaryDirectory() + "/thumbnail-cache-\(UUID().uuidString).png"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a miss answers loading at once, the picture comes from the worker, and later frames reuse it")
    func reuse() async throws {
        let source = CountingSource(picture: PreviewTests.quadrants)
        let cache = ThumbnailCache(source: source)
        let path = try scratchFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(cache.preview(path: path, size: 3) == .loading)
        #expect(try await settled(cache, path, size: 3) == .ready(PreviewTests.quadrants))
        for _ in 0..<100 { #expect(cache.preview(path: path, size: 3) == .ready(PreviewTests.quadrants)) }
        #expect(source.calls.withLock { $0 } == 1)
    }

    @Test("a new size or modification time makes it again; what is no image stays unavailable")
    func invalidation() async throws {
        let source = CountingSource(picture: PreviewTests.quadrants)
        let cache = ThumbnailCache(source: source)
        let path = try scratchFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await settled(cache, path, size: 3)
        _ = try await settled(cache, path, size: 4)
        #expect(source.calls.withLock { $0 } == 2)
        // The same size, a later time: noticed within the lookups between two checks.
        let later = timespec(tv_sec: Int(Date().timeIntervalSince1970) + 100, tv_nsec: 0)
        let times = [later, later]
        #expect(times.withUnsafeBufferPointer { utimensat(AT_FDCWD, path, $0.baseAddress, 0) } == 0)
        for _ in 0..<40 { _ = cache.preview(path: path, size: 4) }
        _ = try await settled(cache, path, size: 4)
        #expect(source.calls.withLock { $0 } == 3)

        let none = ThumbnailCache(source: CountingSource(picture: nil))
        #expect(try await settled(none, path, size: 4) == .unavailable)
    }

    @Test("holds at most its capacity: the least recently used picture is made again")
    func capacity() async throws {
        let source = CountingSource(picture: PreviewTests.quadrants)
        let cache = ThumbnailCache(source: source, capacity: 2)
        let paths = try (0..<3).map { _ in try scratchFile() }
        defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
        for path in paths { _ = try await settled(cache, path, size: 3) }
        #expect(source.calls.withLock { $0 } == 3)
        _ = try await settled(cache, paths[2], size: 3)
        #expect(source.calls.withLock { $0 } == 3)
        _ = try await settled(cache, paths[0], size: 3)
        #expect(source.calls.withLock { $0 } == 4)
    }
}

/// A source that holds every decode until the test opens its gate.
final class GatedSource: ThumbnailSource {
    let gate = DispatchSemaphore(value: 0)

    func thumbnail(path: String, maxWidth: Int, maxHeight: Int) -> Thumbnail? {
        _ = gate.wait(timeout: .now() + 120)
        return PreviewTests.quadrants
    }
}

@Suite("AppLoop previews")
struct AppLoopPreviewTests {
    /// Ticks the loop until `predicate` holds for the screen, up to 120 s: the whole suite in parallel on two cores,
    /// with moto and the upload processes of the integration tests, kept the loop's tasks from a core for over 30 s.
    func tickUntil(_ terminal: InMemoryTerminal, _ predicate: (Frame) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if predicate(terminal.screen) { return true }
            terminal.send(.tick)
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    @Test("frames go on with a placeholder while the picture is decoded, which then shows beside the list")
    func neverWaits() async {
        let size = TerminalSize(cols: 130, rows: 30)
        let source = GatedSource()
        let terminal = InMemoryTerminal(size: size)
        var configuration = TUIConfiguration(source: "~/Pictures/pet", destination: "api.example.com/ai/images/42")
        configuration.thumbnails = source
        configuration.environment = ["COLORTERM": "truecolor"]
        let task = Task {
            await TUIApp.run(
                controller: StaticController(Fixtures.uploading), terminal: terminal, configuration: configuration)
        }
        #expect(await tickUntil(terminal) { fullText($0).contains("loading preview…") }, "\(fullText(terminal.screen))")
        // The decode is still held: the frames that came meanwhile did not wait for it. A key still moves the list.
        terminal.send(.key(.down))
        #expect(await tickUntil(terminal) { $0.line(Layout(size: size).listTop + 1).hasPrefix("▸") })
        source.gate.signal()
        source.gate.signal()
        #expect(await tickUntil(terminal) { frame in (0..<size.rows).contains { frame.line($0).contains("▀") } })
        task.cancel()
        _ = await task.value
    }
}

/// Serves one snapshot for ever.
final class StaticController: UploadController {
    let served: UploadSnapshot
    init(_ snapshot: UploadSnapshot) { served = snapshot }
    func waitUntilIdle() async { try? await Task.sleep(for: .seconds(3600)) }
    func snapshot() async -> UploadSnapshot { served }
    func handle(_ command: UploadCommand) async {}
}
