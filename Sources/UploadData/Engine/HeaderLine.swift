/// One raw response header line as libcurl hands it over (`Name: value\r\n`), parsed on the bytes.
///
/// Runs for every header of every response on the curl thread, where Foundation's `lowercased` and
/// `trimmingCharacters` cost several times these loops (perf).
enum HeaderLine: Equatable {
    /// A status line (`HTTP/1.1 200 OK`): a new response begins (after a 100 Continue or a redirect).
    case status
    /// A header field: the name in ASCII lowercase, the value without surrounding blanks.
    case field(name: String, value: String)
    /// The blank line that ends the headers, or a line without a colon.
    case other

    /// Whether the status line `bytes` is of an interim answer (1xx).
    static func isInterim(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let line = bytes.bindMemory(to: UInt8.self)
        guard let space = line.firstIndex(of: UInt8(ascii: " ")), space + 1 < line.count else { return false }
        return line[space + 1] == UInt8(ascii: "1")
    }

    init(_ bytes: UnsafeRawBufferPointer) {
        let line = bytes.bindMemory(to: UInt8.self)
        if line.starts(with: "HTTP/".utf8) {
            self = .status
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            self = .other
            return
        }
        let name = String(unsafeUninitializedCapacity: colon) { buffer in
            for index in 0..<colon {
                let byte = line[index]
                buffer[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return colon
        }
        var start = colon + 1
        var end = line.count
        while start < end, Self.isBlank(line[start]) { start += 1 }
        while end > start, Self.isBlank(line[end - 1]) { end -= 1 }
        self = .field(
            name: name, value: String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }
}
