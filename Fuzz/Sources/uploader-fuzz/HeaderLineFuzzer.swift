import UploadDomain

@testable import UploadData

/// Header lines on fuzzed bytes: `HeaderLine` (a response header from libcurl) and `HTTPHeader(line:)` (`--header`).
///
/// `HeaderLine` must call a line starting `HTTP/` a status, lowercase the name exactly (ASCII only) up to the first
/// colon, and trim blanks around the value; an `HTTPHeader` must have a token name and a value without CR, LF or
/// NUL, and read back the same from its own `Name: value` line (unless the value starts with a combining mark).
enum HeaderLineFuzzer {
    static let blanks: Set<UInt8> = [0x20, 0x09, 0x0D, 0x0A]

    static func run(_ input: [UInt8]) {
        let parsed = input.withUnsafeBytes { HeaderLine($0) }
        if input.starts(with: Array("HTTP/".utf8)) {
            require(parsed == .status, "HTTP/ line not a status")
        } else if let colon = input.firstIndex(of: UInt8(ascii: ":")) {
            guard case .field(let name, let value) = parsed else { return require(false, "no field for a colon line") }
            let lowered = input[..<colon].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
            require(name == lowered.text, "name \(name.debugDescription)")
            let valueBytes = Array(value.utf8)
            if let first = valueBytes.first, let last = valueBytes.last {
                require(!blanks.contains(first) && !blanks.contains(last), "untrimmed value \(value.debugDescription)")
            }
        } else {
            require(parsed == .other, "a line without a colon parsed as \(parsed)")
        }

        guard let header = HTTPHeader(line: input.text) else { return }
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        require(!header.name.isEmpty && header.name.utf8.allSatisfy(tokenCharacters.contains), "name \(header.name)")
        require(
            !header.value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" },
            "value \(header.value.debugDescription)")
        // Trimming goes by characters: a value that starts with a combining mark makes one character of it and the
        // space before it, which then stays (`T: \u{7EB}x` reads as " \u{7EB}x"). Still one safe header line.
        if ("T: " + header.value).count == 3 + header.value.count {
            require(HTTPHeader(line: "\(header.name): \(header.value)") == header, "\(header) does not read back")
        }
    }
}
