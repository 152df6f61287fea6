/// A file name pattern with rclone's rules, matched against a path relative to the folder given:
///
/// - `*` is any run of characters but `/`, `**` any run including `/`, `?` one character but `/`;
/// - `[a-z]`, `[!0-9]` (or `[^0-9]`) a character class, `{jpg,png}` one of the alternatives, `\*` a literal `*`;
/// - a pattern starting with `/` is matched from the folder's top; any other matches whole trailing path elements
///   (`*.jpg` matches `a.jpg` and `raw/a.jpg`, `raw/*.jpg` matches `2024/raw/a.jpg` but not `draw/a.jpg`);
/// - a pattern ending with `/` is a folder and everything in it (`raw/` is `raw/**`).
public struct GlobPattern: Sendable, CustomStringConvertible {
    /// Why a pattern cannot be used, for a one-line usage error.
    public struct Invalid: Error, CustomStringConvertible {
        public let pattern: String
        public let reason: String
        public var description: String { "'\(Sanitizer.displayName(pattern))': \(reason)" }
    }

    /// The pattern as given.
    public let description: String
    // Regex is not Sendable; it is only ever read here, and matching does not mutate it.
    private nonisolated(unsafe) let regex: Regex<AnyRegexOutput>
    /// Matches the folders whose whole content the pattern covers (`raw/` or `raw/**`), so a scan can skip them.
    private nonisolated(unsafe) let folderRegex: Regex<AnyRegexOutput>?

    /// Compiles `pattern`.
    /// - Throws: `Invalid` for an empty pattern, an unclosed `[` or `{`, or a trailing `\`.
    public init(_ pattern: String) throws(Invalid) {
        guard !pattern.isEmpty else { throw Invalid(pattern: pattern, reason: "an empty pattern matches nothing") }
        description = pattern
        var body = pattern
        let anchored = body.hasPrefix("/")
        if anchored { body.removeFirst() }
        if body.hasSuffix("/") { body += "**" }
        let prefix = anchored ? "" : "(?:.*/)?"
        do {
            regex = try Regex(prefix + (try Self.translate(body, pattern: pattern)))
            if body.hasSuffix("/**"), body.count > 3 {
                folderRegex = try Regex(prefix + (try Self.translate(String(body.dropLast(3)), pattern: pattern)))
            } else {
                folderRegex = nil
            }
        } catch let invalid as Invalid {
            throw invalid
        } catch {
            throw Invalid(pattern: pattern, reason: "\(error)")
        }
    }

    /// True when `path` (relative, `/`-separated) matches.
    public func matches(_ path: String) -> Bool {
        (try? regex.wholeMatch(in: path)) != nil
    }

    /// True when the pattern covers the folder `path` and everything in it.
    public func coversFolder(_ path: String) -> Bool {
        folderRegex.map { (try? $0.wholeMatch(in: path)) != nil } ?? false
    }

    /// The regular expression for `glob`, without anchors.
    private static func translate(_ glob: String, pattern: String) throws(Invalid) -> String {
        var out = ""
        var characters = Array(glob)[...]
        var braces = 0
        while let c = characters.popFirst() {
            switch c {
            case "*":
                if characters.first == "*" {
                    characters.removeFirst()
                    // `a/**/b` also matches `a/b`, as in rclone and gitignore.
                    if out.hasSuffix("/"), characters.first == "/" {
                        characters.removeFirst()
                        out += "(?:.*/)?"
                    } else {
                        out += ".*"
                    }
                } else {
                    out += "[^/]*"
                }
            case "?": out += "[^/]"
            case "[":
                guard let end = characters.firstIndex(of: "]"), end > characters.startIndex else {
                    throw Invalid(pattern: pattern, reason: "'[' without a closing ']'")
                }
                var set = characters[characters.startIndex..<end]
                characters = characters[(end + 1)...]
                var negated = false
                if set.first == "!" || set.first == "^" {
                    negated = true
                    set.removeFirst()
                }
                let members = set.map { $0 == "\\" || $0 == "[" || $0 == "]" ? "\\\($0)" : String($0) }.joined()
                out += (negated ? "[^/" : "[") + members + "]"
            case "{":
                braces += 1
                out += "(?:"
            case "," where braces > 0: out += "|"
            case "}" where braces > 0:
                braces -= 1
                out += ")"
            case "\\":
                guard let escaped = characters.popFirst() else {
                    throw Invalid(pattern: pattern, reason: "a trailing '\\' escapes nothing")
                }
                out += literal(escaped)
            default: out += literal(c)
            }
        }
        guard braces == 0 else { throw Invalid(pattern: pattern, reason: "'{' without a closing '}'") }
        return out
    }

    private static func literal(_ c: Character) -> String {
        "\\^$.|?*+()[]{}/".contains(c) ? "\\\(c)" : String(c)
    }
}
