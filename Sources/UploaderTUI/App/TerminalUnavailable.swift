/// Curses could not start here; the caller falls back to headless output with a one-line notice.
public struct TerminalUnavailable: Error, Sendable, Equatable {
    /// Why the terminal cannot be used.
    public enum Code: Sendable, Equatable {
        /// `TERM` is unset or `dumb`.
        case dumbTerminal
        /// Standard input or output is not a terminal (a pipe, a file, CI).
        case notATerminal
        /// `newterm` failed (unknown `TERM`, no terminfo entry).
        case cursesFailed
    }

    public var code: Code
    /// The `TERM` value at the time, when known.
    public var term: String?

    /// Creates the error.
    public init(_ code: Code, term: String? = nil) {
        self.code = code
        self.term = term
    }
}

// MARK: - Description

extension TerminalUnavailable: CustomStringConvertible {
    /// Why the terminal cannot be used, in a few words.
    public var cause: String {
        switch code {
        case .dumbTerminal:
            term.map { $0.isEmpty ? "TERM is not set" : "TERM=\($0) cannot draw it" } ?? "TERM is not set"
        case .notATerminal:
            "standard input or output is not a terminal"
        case .cursesFailed:
            "ncurses could not start" + (term.map { " for TERM=\($0)" } ?? "")
        }
    }

    /// One line naming the cause and what happens instead.
    public var description: String {
        "terminal UI unavailable (\(cause)); showing plain progress instead (use --no-tui to silence this)"
    }
}
