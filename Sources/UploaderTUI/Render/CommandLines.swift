import UploadDomain

/// A one-line shell command laid out as a script: one option per line, joined by ` \` continuations, so a
/// mouse selection of the lines pastes as a command that runs.
enum CommandLines {
    /// Options that take no value, so the word after them starts a new line.
    private static let flags: Set<String> = [
        "-s", "-S", "-sS", "-v", "-L", "-k", "-i", "--fail", "--fail-with-body", "--compressed", "--silent",
        "--show-error", "--http1.1", "--http2", "-g", "--globoff",
    ]

    /// The lines of `command`: the program with its leading flags, then each option with its value, then the
    /// operand (the URL). A trailing `# comment` keeps a line of its own, after a line without `\`.
    static func split(_ command: String) -> [String] {
        var words = words(of: command)
        var comment: String?
        if let hash = words.firstIndex(where: { $0.hasPrefix("#") }) {
            comment = words[hash...].joined(separator: " ")
            words.removeSubrange(hash...)
        }
        guard !words.isEmpty else { return comment.map { [$0] } ?? [] }
        var groups: [[String]] = [[words[0]]]
        var index = 1
        while index < words.count, flags.contains(words[index]) {
            groups[0].append(words[index])
            index += 1
        }
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("-"), !flags.contains(word), index + 1 < words.count {
                groups.append([word, words[index + 1]])
                index += 2
            } else {
                groups.append([word])
                index += 1
            }
        }
        var lines = groups.enumerated().map { offset, group in
            (offset == 0 ? "" : "  ") + group.joined(separator: " ") + (offset == groups.count - 1 ? "" : " \\")
        }
        if let comment { lines.append(comment) }
        return lines
    }

    /// `lines` (from `split`) fitted to `width` columns so that a selection of the rows still pastes as the same
    /// command: a long line breaks between words with ` \`, and a word longer than a row breaks with a backslash
    /// at the row's end (closing and reopening a single quote around it), its rest starting the next row at column
    /// 0, as the shell joins them back into one word. A comment continues as another comment. Rows start with
    /// `margin` blanks, but for the rest of a cut word.
    static func wrap(_ lines: [String], width: Int, margin: Int = 0) -> [String] {
        let indent = String(repeating: " ", count: margin)
        let width = width - margin
        guard width >= 8 else { return lines.map { indent + $0 } }
        var rows: [String] = []
        var pieces: Set<Int> = []
        for line in lines {
            guard DisplayWidth.of(line) > width else {
                rows.append(line)
                continue
            }
            if line.hasPrefix("#") {
                var row = ""
                for character in line {
                    if DisplayWidth.of(row) + DisplayWidth.of(character) > width {
                        rows.append(row)
                        row = "# "
                    }
                    row.append(character)
                }
                rows.append(row)
                continue
            }
            let lead = line.hasPrefix("  ") ? "  " : ""
            var words = words(of: line)
            let continued = words.last == "\\"
            if continued { words.removeLast() }
            var row = ""
            for word in words {
                let candidate = row.isEmpty ? lead + word : row + " " + word
                if DisplayWidth.of(candidate) + 2 <= width {
                    row = candidate
                    continue
                }
                if !row.isEmpty { rows.append(row + " \\") }
                row = lead + word
                if DisplayWidth.of(row) + 2 <= width { continue }
                // A word too long for a row of its own is cut; its pieces carry on at column 0.
                var cuts = cut(word, first: width - lead.count - 2, rest: width + margin - 2)
                row = lead + cuts.removeFirst()
                for piece in cuts {
                    rows.append(row)
                    pieces.insert(rows.count)
                    row = piece
                }
            }
            rows.append(row + (continued ? " \\" : ""))
        }
        return rows.enumerated().map { pieces.contains($0.offset) ? $0.element : indent + $0.element }
    }

    /// `word` in pieces of at most `first`, then `rest` columns, each but the last ending in a backslash that the
    /// shell removes with the line break; inside single quotes the quote closes before it and reopens after.
    static func cut(_ word: String, first: Int, rest: Int) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quote: Character?
        var escaped = false
        for character in word {
            let limit = pieces.isEmpty ? first : rest
            // Never between a backslash and what it escapes.
            if !escaped, DisplayWidth.of(current) + DisplayWidth.of(character) + (quote == "'" ? 2 : 1) > limit,
                !current.isEmpty
            {
                if quote == "'" {
                    pieces.append(current + "'\\")
                    current = "'"
                } else {
                    pieces.append(current + "\\")
                    current = ""
                }
            }
            current.append(character)
            if escaped {
                escaped = false
            } else if character == "\\", quote != "'" {
                escaped = true
            } else if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            }
        }
        pieces.append(current)
        return pieces
    }

    /// Splits at blanks outside quotes, keeping the quotes (and backslash escapes) in the words.
    static func words(of command: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var escaped = false
        for character in command {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            if character == "\\", quote != "'" {
                current.append(character)
                escaped = true
                continue
            }
            if let open = quote {
                if character == open { quote = nil }
                current.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character == " " || character == "\t" {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
