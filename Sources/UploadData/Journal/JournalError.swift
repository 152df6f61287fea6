import Foundation
import GRDB

/// Why the journal cannot be used: the file is not a database, another run holds it, or it cannot be written.
///
/// The journal never starts afresh over a file it cannot use; the user moves it away or picks another.
public struct JournalError: Error, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Code: Sendable, Equatable {
        /// The file is not an SQLite database, is corrupt, or belongs to another program.
        case notADatabase
        /// Another running instance holds the journal.
        case locked
        /// The file or its folder cannot be created or written (read-only folder, permissions, disk full).
        case notWritable
        /// There is no journal at the path (reading history only; opening for a run creates it).
        case notFound
        /// Any other SQLite failure.
        case sqliteFailure
    }

    public var code: Code
    /// The journal's path.
    public var path: String
    /// The cause in words, one line: an errno text, SQLite's message or `quick_check`'s first complaint.
    public var reason: String

    /// Creates an error; `reason` is folded onto one line.
    public init(_ code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Maps an error thrown by GRDB (or one of ours) to the journal's terms.
    static func from(_ error: any Error, path: String) -> JournalError {
        if let error = error as? JournalError { return error }
        guard let error = error as? DatabaseError else {
            return JournalError(.sqliteFailure, path: path, reason: "\(error)")
        }
        let message = error.message ?? "SQLite error \(error.extendedResultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_NOTADB:
            return JournalError(.notADatabase, path: path, reason: "not an SQLite database")
        case .SQLITE_CORRUPT:
            return JournalError(.notADatabase, path: path, reason: "corrupt SQLite database (\(message))")
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return JournalError(.notWritable, path: path, reason: "cannot open or write it (\(message))")
        case .SQLITE_FULL:
            return JournalError(.notWritable, path: path, reason: "cannot write it (disk full)")
        default:
            return JournalError(.sqliteFailure, path: path, reason: "SQLite failure (\(message))")
        }
    }

    /// An error from a failed system call, by its `errno`.
    static func system(_ code: Code, path: String, doing what: String, errno number: Int32) -> JournalError {
        JournalError(code, path: path, reason: "\(what) (\(String(cString: strerror(number))))")
    }
}

// MARK: - Description

extension JournalError: CustomStringConvertible {
    /// `journal PATH: cause; way out`, one line, as an upload says it.
    public var description: String { description(offeringNoResume: true) }

    /// `description` for a command with or without `--no-resume` among its ways out: `history` and `delete` have
    /// only `--journal PATH`.
    public func description(offeringNoResume: Bool) -> String {
        "journal \(path): \(reason); \(remedy(offeringNoResume))"
    }

    private func remedy(_ offeringNoResume: Bool) -> String {
        let elsewhere = offeringNoResume ? "pass --journal PATH or --no-resume" : "pass --journal PATH"
        return switch code {
        case .notADatabase: "move it away, or \(elsewhere)"
        case .locked: "wait for the other run to finish, or \(elsewhere)"
        case .notWritable: "check the folder's permissions and free space, or \(elsewhere)"
        case .notFound: "no run has been recorded there yet; pass --journal PATH to read another"
        case .sqliteFailure: elsewhere
        }
    }
}
