import CNcurses
import Foundation
import Synchronization
import UploadDomain

/// The real terminal: ncurses on a dedicated thread, events out through an `AsyncStream`.
///
/// Every curses call (start, reads, writes, `endwin`) happens on the one thread the terminal starts,
/// because ncurses is not thread-safe. Other threads only hand over rows to write under a lock, then wake
/// that thread through a pipe, so a frame or `close()` takes effect at once rather than at the next tick.
public final class CursesTerminal: Terminal {
    private struct Shared {
        /// Rows waiting to be drawn, latest content per row.
        var pending: [Int: [Cell]] = [:]
        /// OSC 52 sequences waiting to go out after the next rows.
        var clipboard: [String] = []
        var closing = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    public let initialSize: TerminalSize
    public let capabilities: TerminalCapabilities
    public let events: AsyncStream<TerminalEvent>
    private let sink: AsyncStream<TerminalEvent>.Continuation
    private let shared = Mutex(Shared())
    private let tickInterval: Duration
    /// The wake pipe's read end (the curses thread waits on it) and write end (any thread wakes it).
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private init(size: TerminalSize, capabilities: TerminalCapabilities, tickInterval: Duration, wake: (Int32, Int32)) {
        initialSize = size
        self.capabilities = capabilities
        self.tickInterval = tickInterval
        (wakeRead, wakeWrite) = wake
        (events, sink) = AsyncStream.makeStream(of: TerminalEvent.self, bufferingPolicy: .bufferingNewest(1024))
    }

    deinit {
        // Only here: a write() or close() racing the loop's end must never hit a reused descriptor.
        _ = Glibc.close(wakeRead)
        _ = Glibc.close(wakeWrite)
    }

    /// Starts curses on the process's terminal and returns once the screen is ready.
    /// - Parameters:
    ///   - useColor: false keeps every cell in the default colour.
    ///   - mouse: true asks the terminal to report clicks and wheel steps.
    ///   - tickInterval: how often `.tick` arrives when no key is pressed.
    /// - Throws: `TerminalUnavailable` when `newterm` fails.
    public static func start(useColor: Bool, mouse: Bool = true, tickInterval: Duration = .microseconds(33_334))
        async throws
        -> CursesTerminal
    {
        var fds: [Int32] = [-1, -1]
        guard cn_wake_open(&fds) == 0 else { throw TerminalUnavailable(.cursesFailed) }
        let wake = (fds[0], fds[1])
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                // Names the thread in top and /proc (pthread_setname_np does not import from Swift here).
                try? "uploader-curses".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                // setlocale must precede newterm, or wide characters and line drawing come out garbled.
                let utf8 = cn_setlocale_is_utf8() == 1
                let status = cn_start(useColor ? 1 : 0, wake.1)
                guard status >= 0 else {
                    _ = Glibc.close(wake.0)
                    _ = Glibc.close(wake.1)
                    continuation.resume(throwing: TerminalUnavailable(.cursesFailed))
                    return
                }
                cn_enable_mouse(mouse ? 1 : 0)
                let terminal = CursesTerminal(
                    size: TerminalSize(cols: Int(cn_cols()), rows: Int(cn_rows())),
                    capabilities: TerminalCapabilities(
                        unicode: utf8, color: status & 1 == 1, colorCount: Int(cn_color_count())),
                    tickInterval: tickInterval, wake: wake)
                continuation.resume(returning: terminal)
                terminal.runLoop()
            }
            thread.start()
        }
    }

    /// Gives the terminal back at once, from any thread, when the process is about to exit mid-screen.
    public static func restoreBeforeExit() {
        cn_restore_for_exit()
    }

    public func write(_ frame: Frame, rows: [Int]) {
        var copies: [(Int, [Cell])] = []
        copies.reserveCapacity(rows.count)
        for y in rows where y >= 0 && y < frame.size.rows { copies.append((y, Array(frame.row(y)))) }
        shared.withLock { shared in
            for (y, cells) in copies { shared.pending[y] = cells }
        }
        cn_wake(wakeWrite)
    }

    public func setClipboard(_ text: String) {
        let sequence = OSC52.sequence(text)
        shared.withLock { $0.clipboard.append(sequence) }
        cn_wake(wakeWrite)
    }

    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = shared.withLock { shared in
                if shared.finished { return true }
                shared.closing = true
                shared.waiters.append(continuation)
                return false
            }
            if finished { continuation.resume() } else { cn_wake(wakeWrite) }
        }
    }

    // MARK: - The curses thread

    private func runLoop() {
        let clock = ContinuousClock()
        var nextTick = clock.now + tickInterval
        while !shared.withLock({ $0.closing }) {
            let left = nextTick - clock.now
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            _ = cn_wait(wakeRead, Int32(clamping: max(0, milliseconds)))
            // Back from Ctrl-Z or SIGSTOP: the shell wrote over the screen, and the size may have changed unseen.
            if cn_job_control() == 1 { sink.yield(.resize(cols: Int(cn_cols()), rows: Int(cn_rows()))) }
            // Read even when cn_wait saw no input: a SIGWINCH that went to another thread shows only here.
            readPending()
            let now = clock.now
            if now >= nextTick {
                nextTick = now + tickInterval
                sink.yield(.tick)
            }
            drawPending()
            writeClipboard()
        }
        cn_stop()
        sink.finish()
        let waiters = shared.withLock { shared in
            shared.finished = true
            defer { shared.waiters = [] }
            return shared.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Hands on every key and resize ncurses has; it reads without blocking.
    private func readPending() {
        var value: UInt32 = 0
        while true {
            switch cn_read(&value) {
            case CN_READ_CHAR: sink.yield(.key(Self.key(character: value)))
            case CN_READ_KEY: sink.yield(.key(Self.key(code: value)))
            case CN_READ_RESIZE: sink.yield(.resize(cols: Int(cn_cols()), rows: Int(cn_rows())))
            case CN_READ_MOUSE: if let mouse = Self.mouse(packed: value) { sink.yield(.mouse(mouse)) }
            case CN_READ_SKIP: continue
            default: return
            }
        }
    }

    private func drawPending() {
        let rows = shared.withLock { shared in
            defer { shared.pending = [:] }
            return shared.pending
        }
        guard !rows.isEmpty else { return }
        for (y, cells) in rows {
            for (x, cell) in cells.enumerated() where cell.width > 0 {
                if let pixels = cell.style.pixels {
                    cn_put_pixel(Int32(y), Int32(x), colorNumber(pixels.upper), pixels.lower.map(colorNumber) ?? -1)
                    continue
                }
                let style = Self.styleBits(cell.style)
                let scalars = cell.character.unicodeScalars
                if scalars.count == 1, let scalar = scalars.first {
                    var value = scalar.value
                    cn_put_cell(Int32(y), Int32(x), &value, 1, Int32(cell.width), style)
                } else {
                    let values = scalars.prefix(5).map(\.value)
                    values.withUnsafeBufferPointer { buffer in
                        cn_put_cell(
                            Int32(y), Int32(x), buffer.baseAddress, Int32(buffer.count), Int32(cell.width), style)
                    }
                }
            }
        }
        cn_refresh()
    }

    /// Writes pending OSC 52 sequences straight to the tty, after curses flushed its frame, so the escape never
    /// splits one of curses' own sequences. It moves no cursor and prints nothing, so curses' idea of the
    /// screen stays true.
    private func writeClipboard() {
        let sequences = shared.withLock { shared in
            defer { shared.clipboard = [] }
            return shared.clipboard
        }
        for sequence in sequences {
            let bytes = Array(sequence.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { cn_write_raw($0.baseAddress, $0.count) }
            }
        }
    }

    /// The number curses takes for `color`: RGB itself on a direct-colour terminal, else a palette index.
    private func colorNumber(_ color: TerminalColor) -> Int32 {
        switch color {
        case .indexed(let index): return Int32(index)
        case .rgb(let rgb) where capabilities.directColor:
            return Int32(rgb.red) << 16 | Int32(rgb.green) << 8 | Int32(rgb.blue)
        case .rgb(let rgb): return Int32(Palette256.index(of: rgb))
        }
    }

    private static func styleBits(_ style: CellStyle) -> Int32 {
        var bits = Int32(style.color.rawValue) & CN_STYLE_COLOR_MASK
        if style.bold { bits |= CN_STYLE_BOLD }
        if style.dim { bits |= CN_STYLE_DIM }
        if style.reverse { bits |= CN_STYLE_REVERSE }
        if style.underline { bits |= CN_STYLE_UNDERLINE }
        return bits
    }

    // MARK: - Keys

    /// Names a character read by `wget_wch`.
    static func key(character value: UInt32) -> Key {
        switch value {
        case 27: return .escape
        case 10, 13: return .enter
        case 9: return .tab
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(value) + 96)))
        default:
            guard let scalar = Unicode.Scalar(value), value >= 32 else { return .unknown }
            return .character(Character(scalar))
        }
    }

    /// Decodes a mouse event the shim packed as `CN_MOUSE_* << 24 | row << 12 | column`.
    static func mouse(packed value: UInt32) -> MouseEvent? {
        let x = Int(value & 0xFFF)
        let y = Int(value >> 12 & 0xFFF)
        switch Int32(value >> 24) {
        case CN_MOUSE_PRESS: return MouseEvent(.press, x: x, y: y)
        case CN_MOUSE_WHEEL_UP: return MouseEvent(.wheelUp, x: x, y: y)
        case CN_MOUSE_WHEEL_DOWN: return MouseEvent(.wheelDown, x: x, y: y)
        default: return nil
        }
    }

    /// Names a function key the shim translated to a `CN_KEY_*` code.
    static func key(code: UInt32) -> Key {
        switch Int32(code) {
        case CN_KEY_UP: .up
        case CN_KEY_DOWN: .down
        case CN_KEY_LEFT: .left
        case CN_KEY_RIGHT: .right
        case CN_KEY_PAGE_UP: .pageUp
        case CN_KEY_PAGE_DOWN: .pageDown
        case CN_KEY_HOME: .home
        case CN_KEY_END: .end
        case CN_KEY_ENTER: .enter
        case CN_KEY_BACKSPACE: .backspace
        case CN_KEY_DELETE: .delete
        case CN_KEY_BACK_TAB: .backTab
        default: .unknown
        }
    }
}
