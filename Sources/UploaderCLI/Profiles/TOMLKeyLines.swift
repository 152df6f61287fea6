/// The line on which each key of a TOML text is defined. TOMLKit gives lines for syntax errors only, so the lines of
/// keys, for "unknown setting" and "wrong type" errors, are found here, in a pass over the text.
struct TOMLKeyLines {
    private var lines: [[String]: Int] = [:]

    /// Reads `[a.b]` headers and `key =` lines; keys inside inline tables or multi-line values are not indexed, and
    /// `line(of:)` falls back to the nearest enclosing key.
    init(_ text: String) {
        var table: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.hasPrefix("[") {
                let inner = line.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.dottedKey(inner)
                record(table, line: index + 1)
            } else if let eq = Self.assignment(line) {
                record(table + Self.dottedKey(line[..<eq]), line: index + 1)
            }
        }
    }

    /// A key's first line, and its parents' unless they came earlier (`[profile.pets]` defines profile too).
    private mutating func record(_ path: [String], line: Int) {
        for end in stride(from: path.count, to: 0, by: -1) {
            let prefix = Array(path[..<end])
            lines[prefix] = lines[prefix] ?? line
        }
    }

    /// The line of `path` (such as ["profile", "pets", "to"]), else of its nearest indexed parent.
    func line(of path: [String]) -> Int? {
        var path = path
        while !path.isEmpty {
            if let line = lines[path] { return line }
            path.removeLast()
        }
        return nil
    }

    /// The index of the `=` of a `key = value` line, outside quotes.
    private static func assignment(_ line: String) -> String.Index? {
        var quote: Character?
        var escaped = false
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if escaped {
                    escaped = false
                } else if open == "\"", character == "\\" {
                    escaped = true
                } else if character == open {
                    quote = nil
                }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "=" {
                return index
            } else if character == "#" || character == "[" || character == "{" {
                return nil
            }
        }
        return nil
    }

    /// The parts of a dotted key, quoted ones as TOML reads them: `"ev\u001Bil"` is the key the parser names.
    private static func dottedKey(_ text: Substring) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        var rest = text.unicodeScalars[...]
        while let scalar = rest.popFirst() {
            let character = Character(scalar)
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"", character == "\\", let next = rest.popFirst() {
                    current.unicodeScalars.append(unescaped(next, from: &rest))
                } else {
                    current.unicodeScalars.append(scalar)
                }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "." {
                parts.append(current)
                current = ""
            } else if character != " " && character != "\t" {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    /// What `\` then `letter` (and the hex digits it takes from `rest`) stand for in a TOML basic string.
    private static func unescaped(
        _ letter: Unicode.Scalar, from rest: inout Substring.UnicodeScalarView.SubSequence
    ) -> Unicode.Scalar {
        let digits =
            switch letter {
            case "u": 4
            case "U": 8
            case "x": 2
            default: 0
            }
        guard digits > 0 else {
            let simple: [Unicode.Scalar: Unicode.Scalar] = [
                "b": "\u{8}", "t": "\t", "n": "\n", "f": "\u{C}", "r": "\r", "e": "\u{1B}",
            ]
            return simple[letter] ?? letter
        }
        let hex = String(String.UnicodeScalarView(rest.prefix(digits)))
        rest = rest.dropFirst(digits)
        return UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) ?? "\u{FFFD}"
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
