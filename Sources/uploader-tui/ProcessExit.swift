import Foundation

/// How the program ends: every exit goes through here.
enum ProcessExit {
    /// Flushes standard output and ends the process without the libraries' exit handlers.
    ///
    /// Nothing of ours needs them (the journal is closed or its commits are durable, the terminal is restored
    /// before), and they cost and risked: OpenSSL's and GnuTLS's clean-up took about 1 ms of every run (issue 6),
    /// and running while another thread still loaded or used libcurl, they crashed.
    static func now(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}
