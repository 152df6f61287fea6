import Foundation
import UploadDomain

/// The protocol between a run process and its screens: newline-delimited JSON over a Unix socket.
///
/// Each side starts with a `hello` naming its version; the run sends its own first. After that the run sends
/// `snapshot`, `notice`, `curl` and finally `ended`; a client sends `command`, `curl` requests, `interrupt` and
/// `quit`. README's "Detached runs" page documents every field.
public enum RunProtocol {
    /// Bumped whenever a message changes meaning or loses a field; fields may be added within a version.
    public static let version = 1
}

/// What a connecting client is there for.
public enum ClientRole: String, Codable, Sendable {
    /// A screen: snapshots until it leaves; the run waits for its screens before it ends.
    case screen
    /// `ps`: the hello (with its summary) only.
    case status
    /// `stop`: snapshots, and commands, without counting as a screen.
    case control
}

/// One line of the protocol, either way. Every field but `type` is optional, so a reader of this version can
/// still see the `version` of a hello from another.
public struct RunLine: Codable, Sendable {
    /// The message kind.
    public enum Kind: String, Codable, Sendable {
        case hello, snapshot, notice, curl, ended, refused, command, interrupt, quit
    }

    public var type: Kind
    /// hello: the protocol version the sender speaks.
    public var version: Int?
    /// hello from a client: what it came for.
    public var role: ClientRole?
    /// hello from the run: what runs.
    public var run: RunInfo?
    /// hello from the run: the batch's goodput in each of the last seconds (up to 60), oldest first, so a screen
    /// that attaches draws the last minute's graph at once.
    public var rates: [Double]?
    /// snapshot: the batch, rows that changed since the last one.
    public var snapshot: WireSnapshot?
    /// notice: a line for the footer; refused: why.
    public var text: String?
    /// curl: which file (a request from a client; the answer carries `text` too).
    public var file: Int?
    /// ended: the run's exit status.
    public var exitCode: Int32?
    /// command: what the screen asks.
    public var command: WireCommand?

    /// Creates a line of `type` with no fields.
    public init(_ type: Kind) {
        self.type = type
    }

    /// A hello from a client.
    public static func clientHello(_ role: ClientRole) -> RunLine {
        var line = RunLine(.hello)
        line.version = RunProtocol.version
        line.role = role
        return line
    }

    /// A hello from the run.
    public static func runHello(_ info: RunInfo, rates: [Double] = []) -> RunLine {
        var line = RunLine(.hello)
        line.version = RunProtocol.version
        line.run = info
        line.rates = rates
        return line
    }

    /// The line as bytes, newline included. JSON escapes line breaks inside strings, so one message is one line.
    public func encoded() -> Data {
        var data = (try? RunLine.encoder.encode(self)) ?? Data("{\"type\":\"refused\"}".utf8)
        data.append(0x0A)
        return data
    }

    /// Decodes one line (without its newline).
    /// - Throws: `DecodingError` for a line that is not a message of this protocol.
    public static func decode(_ line: Data) throws -> RunLine {
        try JSONDecoder().decode(RunLine.self, from: line)
    }

    /// The version a hello claims, read without the rest of the line, so a hello of another version still tells
    /// its version; nil for a line that is not a hello of this protocol's shape.
    public static func helloVersion(_ line: Data) -> Int? {
        struct Probe: Decodable {
            var type: String
            var version: Int?
        }
        guard let probe = try? JSONDecoder().decode(Probe.self, from: line), probe.type == "hello" else { return nil }
        return probe.version
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}

/// A run as `ps` lists it, and as a run's hello describes itself.
public struct RunInfo: Codable, Sendable, Equatable {
    public var id: String
    public var pid: Int32
    public var source: String
    /// Secrets already removed.
    public var destination: String
    /// When the run started, seconds since 1970.
    public var started: Double
    public var files: Int
    public var done: Int
    public var failed: Int
    public var cancelled: Int
    public var skipped: Int
    public var bytesSent: Int64
    public var bytesTotal: Int64
    public var bytesPerSecond: Double
    /// `running`, `paused` (it waits for files the user paused), `stopping`, `done`, `failed` (some files failed or
    /// were cancelled), `interrupted` or `gone` (the process died without ending the run).
    public var state: String
    /// Files whose transfer is paused; absent in records of earlier versions.
    public var paused: Int?
    /// The screen leaves when the batch ends (`--exit-when-done`).
    public var exitWhenDone: Bool

    /// Creates a description.
    public init(
        id: String, pid: Int32, source: String, destination: String, started: Double, files: Int = 0, done: Int = 0,
        failed: Int = 0, cancelled: Int = 0, skipped: Int = 0, bytesSent: Int64 = 0, bytesTotal: Int64 = 0,
        bytesPerSecond: Double = 0, state: String = "running", exitWhenDone: Bool = false
    ) {
        self.id = id
        self.pid = pid
        self.source = source
        self.destination = destination
        self.started = started
        self.files = files
        self.done = done
        self.failed = failed
        self.cancelled = cancelled
        self.skipped = skipped
        self.bytesSent = bytesSent
        self.bytesTotal = bytesTotal
        self.bytesPerSecond = bytesPerSecond
        self.state = state
        self.exitWhenDone = exitWhenDone
    }

    /// The same run with the figures of `snapshot`.
    public func updated(from snapshot: UploadSnapshot) -> RunInfo {
        var info = self
        let counts = snapshot.progress.counts
        info.files = counts.total
        info.done = counts.done
        info.failed = counts.failed
        info.cancelled = counts.cancelled
        info.skipped = counts.skipped
        info.bytesSent = snapshot.progress.bytesSent
        // The batch's bytes, cancelled files' too: a stopped run reads "38 KiB of 293 KiB", not "of 38 KiB".
        info.bytesTotal = snapshot.progress.bytesOfBatch
        info.bytesPerSecond = snapshot.isIdle ? 0 : snapshot.progress.bytesPerSecond
        info.paused = snapshot.pausedFiles
        if !snapshot.isIdle {
            info.state = snapshot.stopping != nil ? "stopping" : snapshot.waitsOnPaused ? "paused" : "running"
        } else if ["running", "paused", "stopping"].contains(info.state),
            counts.total > 0, counts.done + counts.failed + counts.cancelled + counts.skipped == counts.total
        {
            // The batch is over while screens keep the process: how it ended so far (`r` on a screen may go on).
            info.state = counts.failed > 0 ? "failed" : counts.cancelled > 0 ? "stopped" : "done"
        }
        return info
    }
}
