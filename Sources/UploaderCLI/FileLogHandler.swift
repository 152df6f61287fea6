import Foundation
import Logging
import Synchronization
import UploadDomain

/// A swift-log handler appending one line per entry to a file (`--log-file`):
/// `2026-11-25T10:20:00.123Z info attempt=2 file=cat.jpg http=201 done, 48213 bytes`.
/// Values are escaped like names on screen, so a log line is always one line, and quoted as logfmt quotes them, so
/// a file name cannot add fields to its line.
public struct FileLogHandler: LogHandler {
    /// The open file, shared by the copies swift-log makes of a handler.
    final class Sink: Sendable {
        let descriptor: Int32
        private let lock = Mutex(())

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        func write(_ line: String) {
            lock.withLock { _ in
                var bytes = Array(line.utf8)
                bytes.append(0x0A)
                var offset = 0
                while offset < bytes.count {
                    let n = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { return }
                    offset += n
                }
            }
        }

        deinit {
            close(descriptor)
        }
    }

    let sink: Sink
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]

    /// Opens `path` for appending (created 0600: a log names the files and where they went).
    /// - Throws: the reason it cannot be written, in the system's words.
    static func open(path: String, level: Logger.Level) throws(RunLog.OpenError) -> FileLogHandler {
        let descriptor = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw RunLog.OpenError(
                description: "--log-file \(Sanitizer.displayName(path)): \(String(cString: strerror(errno)))")
        }
        return FileLogHandler(sink: Sink(descriptor: descriptor), logLevel: level)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        event.metadata.map { fields.merge($0) { $1 } }
        let pairs = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.logfmt("\($0.value)"))" }
        let text =
            ([HeadlessReporter.timestamp(), event.level.rawValue] + pairs + [
                Sanitizer.displayName(event.message.description)
            ]).joined(separator: " ")
        sink.write(text)
    }

    /// `value` as logfmt writes it: escaped like a name on screen, then in double quotes (`"` and `\` escaped by a
    /// backslash) when it is empty or holds a space, `=` or `"` — else `file=a.pdf http=201 done` could be the name
    /// of a file that failed.
    static func logfmt(_ value: String) -> String {
        let shown = Sanitizer.displayName(value)
        guard shown.isEmpty || shown.contains(where: { $0.isWhitespace || $0 == "=" || $0 == "\"" }) else {
            return shown
        }
        return "\"" + shown.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }
}
