import Foundation
import Synchronization

/// Lines for one file descriptor, held back and written together: a 300-file `--json` run makes about 1,500
/// lines, and a `write` each cost more CPU than building them (issue 6).
///
/// Thread-safe, so the second Ctrl-C can flush from the signal thread what the reporter has buffered.
final class OutputBuffer: Sendable {
    /// Past this many bytes a line is written at once, whatever the time.
    static let limit = 64 * 1024

    private let descriptor: Int32
    private let pending = Mutex<[UInt8]>([])

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Adds `text` and a line break.
    func append(_ text: String) {
        let full = pending.withLock { bytes -> [UInt8]? in
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\n"))
            guard bytes.count >= Self.limit else { return nil }
            defer { bytes.removeAll(keepingCapacity: true) }
            return bytes
        }
        if let full { write(full) }
    }

    /// Writes everything held back.
    func flush() {
        let bytes = pending.withLock { bytes -> [UInt8] in
            defer { bytes.removeAll(keepingCapacity: true) }
            return bytes
        }
        if !bytes.isEmpty { write(bytes) }
    }

    /// In as few `write` calls as the descriptor takes; a closed reader ends the output quietly (SIGPIPE, when
    /// not ignored, ends the process as for any CLI).
    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard var next = buffer.baseAddress else { return }
            var left = buffer.count
            while left > 0 {
                let written = Foundation.write(descriptor, next, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                next += written
                left -= written
            }
        }
    }
}
