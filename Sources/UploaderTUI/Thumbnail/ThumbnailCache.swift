import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the preview shows for a file.
public enum Preview: Sendable, Equatable {
    /// Being made; the frame shows a placeholder meanwhile.
    case loading
    /// The file is no image the source can read.
    case unavailable
    /// Ready.
    case ready(Thumbnail)
}

/// Thumbnails made by a `ThumbnailSource` on a thread of their own, kept by path, size and modification time.
///
/// `preview(path:size:)` never waits: a miss starts the work and answers `.loading`, and a later frame finds the
/// picture. Only the latest file asked for is made next, so scrolling through a list decodes what the user stops
/// on rather than every row passed.
public final class ThumbnailCache: Sendable {
    struct Key: Hashable {
        var path: String
        var size: Int64
        var modified: Int64
    }

    private struct Entry {
        var key: Key
        var preview: Preview
        var used: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// The key last checked against the file system for a path, and when (`checks`), so a frame costs no `stat`.
        var checked: [String: (key: Key, at: UInt64)] = [:]
        var wanted: Key?
        var working = false
        var clock: UInt64 = 0
        var made = 0
    }

    private let source: any ThumbnailSource
    private let capacity: Int
    private let state = Mutex(State())
    /// Lookups between two checks of a file's size and time; at 30 frames a second, about one `stat` a second.
    private let recheckEvery: UInt64 = 30
    /// How long the wished-for file must stay the same before it is decoded.
    private let settle: TimeInterval

    /// Creates a cache over `source` holding at most `capacity` thumbnails, decoding a file once it has been the one
    /// asked for during `settle`.
    public init(source: any ThumbnailSource, capacity: Int = 64, settle: Duration = .milliseconds(100)) {
        self.source = source
        self.capacity = max(1, capacity)
        self.settle = Double(settle.components.attoseconds) / 1e18 + Double(settle.components.seconds)
    }

    /// Thumbnails made so far (each decode counts once), for tests.
    public var madeCount: Int { state.withLock { $0.made } }

    /// The preview of the file at `path` of `size` bytes: ready, unavailable, or loading (and then being made).
    public func preview(path: String, size: Int64) -> Preview {
        let (answer, start) = state.withLock { state -> (Preview, Bool) in
            state.clock += 1
            let key: Key
            if let checked = state.checked[path], checked.key.size == size, state.clock - checked.at < recheckEvery {
                key = checked.key
            } else {
                key = Key(path: path, size: size, modified: Self.modified(path))
                state.checked[path] = (key, state.clock)
            }
            if let entry = state.entries[path], entry.key == key {
                state.entries[path]?.used = state.clock
                return (entry.preview, false)
            }
            state.wanted = key
            guard !state.working else { return (.loading, false) }
            state.working = true
            return (.loading, true)
        }
        if start { startWorker() }
        return answer
    }

    /// A thread of its own, not a task: a decode blocks, and the few threads tasks share carry the session. It runs
    /// at a lower priority than the transfers, and waits for the selection to rest a moment, so that scrolling through
    /// the list decodes only where it stops.
    private func startWorker() {
        let thread = Thread { [self] in
            #if os(Linux)
                // On Linux the nice value is the thread's own: 0 names the calling thread.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            #endif
            while let key = state.withLock({ state -> Key? in
                defer { state.wanted = nil }
                if state.wanted == nil { state.working = false }
                return state.wanted
            }) {
                Thread.sleep(forTimeInterval: settle)
                // A newer wish came while this one waited: decode that instead.
                let key = state.withLock { state in
                    defer { state.wanted = nil }
                    return state.wanted ?? key
                }
                let box = Thumbnail.box
                let picture = source.thumbnail(path: key.path, maxWidth: box.cols, maxHeight: box.rows * 2)
                state.withLock { state in
                    state.made += 1
                    state.entries[key.path] = Entry(
                        key: key, preview: picture.map(Preview.ready) ?? .unavailable, used: state.clock)
                    if state.entries.count > capacity,
                        let oldest = state.entries.min(by: { $0.value.used < $1.value.used })?.key
                    {
                        state.entries[oldest] = nil
                    }
                    // Sizes and times checked for files passed while scrolling; a few hundred bytes each.
                    if state.checked.count > 16 * capacity { state.checked = [:] }
                }
            }
        }
        thread.name = "preview"
        thread.start()
    }

    /// The file's modification time in nanoseconds, or -1 when it cannot be read.
    private static func modified(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
