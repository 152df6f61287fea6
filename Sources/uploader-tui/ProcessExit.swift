import Foundation
import Synchronization

/// How the program ends: every exit goes through here.
enum ProcessExit {
    /// Work that must happen on every way out (the prepared images' folder), signals included.
    private static let cleanups = Mutex<[@Sendable () -> Void]>([])

    /// Runs `cleanup` at the exit, whichever path it takes.
    static func atExit(_ cleanup: @escaping @Sendable () -> Void) {
        cleanups.withLock { $0.append(cleanup) }
    }

    /// Flushes standard output and ends the process without the libraries' exit handlers.
    ///
    /// Nothing of ours needs them (the journal is closed or its commits are durable, the terminal is restored
    /// before), and they cost and risked: OpenSSL's and GnuTLS's clean-up lengthened every run, and running while
    /// another thread still loaded or used libcurl, they crashed.
    static func now(_ status: Int32) -> Never {
        for cleanup in cleanups.withLock({ $0 }) { cleanup() }
        fflush(nil)
        _exit(status)
    }
}
