import Glibc
import UploadDomain

/// Builds one NDJSON line as UTF-8 bytes, keys in the order they are added.
///
/// Bytes in a buffer of its own rather than string concatenation or an array: a `--json` run writes four lines a
/// file, and with 10,000 small files building them from small strings, then appending to an array byte by byte
/// (each append checking the array's uniqueness and capacity), cost more CPU than the rest of the reporter.
struct JSONLine: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity = 512
    private var count = 1

    init() {
        storage = .allocate(capacity: capacity)
        storage[0] = UInt8(ascii: "{")
    }

    deinit {
        storage.deallocate()
    }

    mutating func add(_ key: StaticString, _ value: String?) {
        self.key(key)
        guard let text = value else { return putNull() }
        // Most text (file names, URLs, statuses) needs no escape: copied in one go.
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 in
            for byte in utf8 where !JSONText.isPlain(byte) { return false }
            reserve(utf8.count + 2)
            storage[count] = UInt8(ascii: "\"")
            if let base = utf8.baseAddress { (storage + count + 1).update(from: base, count: utf8.count) }
            storage[count + 1 + utf8.count] = UInt8(ascii: "\"")
            count += utf8.count + 2
            return true
        }
        if copied != true {
            var quoted: [UInt8] = []
            JSONText.appendQuoted(text, to: &quoted)
            quoted.withUnsafeBufferPointer { put($0) }
        }
    }

    mutating func add(_ key: StaticString, _ value: Int64?) {
        self.key(key)
        guard let value else { return putNull() }
        putInteger(value)
    }

    mutating func add(_ key: StaticString, _ value: Int?) {
        add(key, value.map(Int64.init))
    }

    mutating func add(_ key: StaticString, _ value: Double) {
        self.key(key)
        guard value.isFinite else { return putNull() }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded() && abs(rounded) < 1e15 {
            putInteger(Int64(rounded))
        } else {
            put(String(rounded))
        }
    }

    /// Adds the time now, UTC with milliseconds (`2026-11-22T08:40:01.123Z`).
    mutating func addNow(_ key: StaticString) {
        self.key(key)
        reserve(26)
        storage[count] = UInt8(ascii: "\"")
        Self.writeNow(to: storage + count + 1)
        storage[count + 25] = UInt8(ascii: "\"")
        count += 26
    }

    /// Writes the time now as 24 bytes, UTC with milliseconds. By hand: an ISO8601DateFormatter per line cost more
    /// than the rest of the NDJSON writer together.
    static func writeNow(to text: UnsafeMutablePointer<UInt8>) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        /// Writes `value` as `count` digits at `start`, then `separator`.
        func put(_ value: Int, _ count: Int, at start: Int, then separator: UInt8) {
            var rest = value
            for index in stride(from: start + count - 1, through: start, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            text[start + count] = separator
        }
        put(Int(parts.tm_year) + 1900, 4, at: 0, then: UInt8(ascii: "-"))
        put(Int(parts.tm_mon) + 1, 2, at: 5, then: UInt8(ascii: "-"))
        put(Int(parts.tm_mday), 2, at: 8, then: UInt8(ascii: "T"))
        put(Int(parts.tm_hour), 2, at: 11, then: UInt8(ascii: ":"))
        put(Int(parts.tm_min), 2, at: 14, then: UInt8(ascii: ":"))
        put(Int(parts.tm_sec), 2, at: 17, then: UInt8(ascii: "."))
        put(now.tv_nsec / 1_000_000, 3, at: 20, then: UInt8(ascii: "Z"))
    }

    /// Adds text that is already valid JSON.
    mutating func add(_ key: StaticString, rawJSON: String) {
        self.key(key)
        put(rawJSON)
    }

    /// The line, without a line break.
    var text: String {
        String(unsafeUninitializedCapacity: count + 1) { buffer in
            _ = buffer.initialize(from: UnsafeBufferPointer(start: storage, count: count))
            buffer[count] = UInt8(ascii: "}")
            return count + 1
        }
    }

    private mutating func key(_ key: StaticString) {
        // Keys are the schema's own names: plain ASCII, nothing to escape.
        let length = key.utf8CodeUnitCount
        reserve(length + 4)
        if count > 1 {
            storage[count] = UInt8(ascii: ",")
            count += 1
        }
        storage[count] = UInt8(ascii: "\"")
        (storage + count + 1).update(from: key.utf8Start, count: length)
        storage[count + 1 + length] = UInt8(ascii: "\"")
        storage[count + 2 + length] = UInt8(ascii: ":")
        count += length + 3
    }

    private mutating func putNull() {
        reserve(4)
        (storage + count).update(from: Self.null, count: 4)
        count += 4
    }

    /// Digits from the last, into a buffer that holds Int64.min's nineteen digits and sign.
    private mutating func putInteger(_ value: Int64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var magnitude = value.magnitude
            var at = buffer.count
            repeat {
                at -= 1
                buffer[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                at -= 1
                buffer[at] = UInt8(ascii: "-")
            }
            put(UnsafeRawBufferPointer(rebasing: buffer[at...]).bindMemory(to: UInt8.self))
        }
    }

    private mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { put($0) }
    }

    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        (storage + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        capacity = max(capacity * 2, count + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: storage, count: count)
        storage.deallocate()
        storage = grown
    }

    private static let null: [UInt8] = Array("null".utf8)

    /// A JSON string literal; control characters escaped so a line never breaks.
    static func quote(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        JSONText.appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
