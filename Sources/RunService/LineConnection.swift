import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One connected socket speaking `RunLine`s: a thread reads and hands each line to `onLine`, another writes what
/// `send` queued, so a slow peer never blocks the caller.
final class LineConnection: Sendable {
    /// Queued lines beyond this mean the peer stopped reading: the connection is dropped.
    static let backlog = 256

    let fd: Int32
    private let outgoing = Mutex<Outgoing>(Outgoing())
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when the writer has written its last line.
    private let written = DispatchSemaphore(value: 0)
    private let closed = Atomic<Bool>(false)
    /// The reader and the writer; the last one to end closes the descriptor, so neither uses a reused number.
    private let loops = Atomic<Int>(2)

    private struct Outgoing {
        var lines: [Data] = []
        var finished = false
    }

    private let onLine: @Sendable (Data) -> Void
    private let onClose: @Sendable () -> Void

    /// A connection on `fd`, which it now owns; nothing is read before `start()`.
    /// - Parameters:
    ///   - onLine: each line read, without its newline.
    ///   - onClose: called once, after the last line, when either side ends the connection.
    init(fd: Int32, onLine: @escaping @Sendable (Data) -> Void, onClose: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.onLine = onLine
        self.onClose = onClose
    }

    /// Starts the reading and writing threads.
    func start() {
        Thread.detachNewThread { [self] in
            readLoop(onLine)
            close()
            onClose()
            loopEnded()
        }
        Thread.detachNewThread { [self] in
            writeLoop()
            written.signal()
            loopEnded()
        }
    }

    /// Queues `line`; dropped when the connection is closed.
    func send(_ line: RunLine) {
        send(encoded: line.encoded())
    }

    /// Queues bytes already encoded (one snapshot goes to several screens).
    func send(encoded data: Data) {
        let overflow = outgoing.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.lines.append(data)
            return state.lines.count > Self.backlog
        }
        if overflow { close() } else { wake.signal() }
    }

    /// Writes what is queued, then closes.
    func finish() {
        outgoing.withLock { $0.finished = true }
        wake.signal()
    }

    /// Waits until what `finish()` left queued is written, or `deadline` passes.
    func waitUntilWritten(deadline: DispatchTime) {
        _ = written.wait(timeout: deadline)
    }

    /// Ends the connection now; the reader sees the end and calls `onClose`.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        outgoing.withLock { $0.finished = true }
        shutdown(fd, Int32(SHUT_RDWR))
        wake.signal()
    }

    private func writeLoop() {
        while true {
            wake.wait()
            let (lines, finished) = outgoing.withLock { state in
                defer { state.lines = [] }
                return (state.lines, state.finished)
            }
            for line in lines where !closed.load(ordering: .acquiring) {
                if !UnixSocket.write(fd, line) {
                    close()
                    break
                }
            }
            if finished {
                // The reader goes on until the peer has seen the end and closed its side.
                shutdown(fd, Int32(SHUT_WR))
                return
            }
        }
    }

    private func readLoop(_ onLine: @Sendable (Data) -> Void) {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            buffer.append(contentsOf: chunk[0..<n])
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = buffer[(newline + 1)...]
                onLine(Data(line))
            }
            if buffer.count > 64 << 20 { break }  // no line of the protocol is this long
        }
    }

    private func loopEnded() {
        if loops.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { Glibc.close(fd) }
    }
}
