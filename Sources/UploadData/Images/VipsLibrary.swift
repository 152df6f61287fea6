import CVips
import Foundation
import Synchronization

/// libvips as the preparer uses it: loaded on first use, with its process-wide error buffer read as one line.
enum VipsLibrary {
    /// Why libvips cannot be used (not installed, too old), or nil once it is loaded and initialised.
    static func loadError() -> String? {
        cvips_load_error().map { String(cString: $0) }
    }

    /// Runs `body`, the libvips work on one file, as a job: what libvips writes into its error buffer while the job
    /// runs may be the job's, what it wrote before or after is not. Every caller of libvips runs in one.
    ///
    /// libvips' buffer is the process's, and most messages name no file ("heif: Invalid input: No 'meta' box",
    /// "TIFFFillStrip: Read error at scanline 90"), so they are told apart by when they were written: each begin and
    /// end of a job moves the buffer's lines here, marked with the jobs running meanwhile. A job that ends drops the
    /// lines only it can have written, taken by its failure or left by a load that went on and succeeded.
    static func job<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let thread = pthread_self()
        let id: Int? = messages.withLock { messages in
            guard messages.running[thread] == nil else { return nil }  // a job within a job is the same job
            messages.collect()
            defer { messages.nextJob += 1 }
            messages.running[thread] = messages.nextJob
            return messages.nextJob
        }
        defer {
            if let id {
                messages.withLock { messages in
                    messages.collect()
                    messages.running[thread] = nil
                    messages.end(id)
                }
            }
        }
        return try body()
    }

    /// The messages of this thread's job about `paths` (an image's input, its output) as one line, then clears them;
    /// "unknown libvips error" when there are none.
    static func takeError(about paths: [String]) -> String {
        let lines = takeErrorLines(about: paths)
        return lines.isEmpty ? "unknown libvips error" : oneLine(lines.joined(separator: "\n"))
    }

    /// The messages of this thread's job (outside a job: those written while no job ran) about `paths`, in the order
    /// written: the lines naming one of them, each with the system's reason on the line after it, and those naming
    /// no file that only this job can have written. When none of these names no file (an encoder's "unable to write
    /// to target" is all there is), also those naming no file that another job running meanwhile may have written:
    /// a decoder's reason names no file. A line naming another file is never given: it is that file's.
    static func takeErrorLines(about paths: [String]) -> [Substring] {
        messages.withLock { messages in
            messages.collect()
            let job = messages.running[pthread_self()]
            var mine: [(text: Substring, named: Bool, shared: Bool)] = []
            var rest: [Messages.Line] = []
            var claiming = false
            for line in messages.lines {
                if paths.contains(where: { line.text.contains($0) }) {
                    claiming = true
                    mine.append((line.text, true, false))
                    continue
                }
                if claiming, line.text.hasPrefix("unix error:") {
                    mine.append((line.text, true, false))
                    continue
                }
                claiming = false
                let maybeMine = job.map { line.holders.contains($0) } ?? line.writers.isEmpty
                if maybeMine, !namesAFile(line.text) {
                    let shared = line.writers.count > 1
                    mine.append((line.text, false, shared))
                    // Perhaps the other job's: it keeps them for its own failure.
                    if !shared { continue }
                }
                rest.append(line)
            }
            messages.lines = Array(rest.suffix(64))
            let ownReason = mine.contains { !$0.named && !$0.shared }
            return mine.filter { !$0.shared || !ownReason }.map(\.text)
        }
    }

    /// libvips' lines waiting to be taken, and the jobs that may have written them.
    private struct Messages {
        struct Line {
            let text: Substring
            /// The jobs running while it was written; empty when none was.
            let writers: Set<Int>
            /// Those of `writers` still running: it goes once none is. A line two jobs may have written stays shared
            /// after one of them ends, so the other does not take it for its own.
            var holders: Set<Int>
        }

        var lines: [Line] = []
        /// The running jobs by the thread that runs each.
        var running: [pthread_t: Int] = [:]
        var nextJob = 0

        /// Moves libvips' pending messages here, marked with the jobs running since the last move: each start and
        /// end of a job moves them, so those are the jobs that may have written them.
        mutating func collect() {
            guard let text = cvips_take_error() else { return }
            let jobs = Set(running.values)
            lines += String(cString: text).split(whereSeparator: \.isNewline).map {
                Line(text: $0, writers: jobs, holders: jobs)
            }
            cvips_free_string(text)
        }

        /// Job `id` has ended: the lines only it can have written go.
        mutating func end(_ id: Int) {
            lines = lines.compactMap { line in
                var line = line
                guard line.holders.remove(id) != nil else { return line }
                return line.holders.isEmpty ? nil : line
            }
        }
    }

    private static let messages = Mutex(Messages())

    /// True when `line` holds an absolute path (libvips names files by the path they were opened with).
    private static func namesAFile(_ line: Substring) -> Bool {
        line.hasPrefix("/") || line.contains(" /") || line.contains("\"/")
    }

    /// `text`'s non-empty lines, trimmed, without repeats, joined by "; " and cut at 300 characters.
    static func oneLine(_ text: String) -> String {
        var seen: Set<Substring> = []
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.drop(while: \.isWhitespace) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
        let joined = lines.joined(separator: "; ")
        return joined.count > 300 ? String(joined.prefix(299)) + "…" : joined
    }
}
