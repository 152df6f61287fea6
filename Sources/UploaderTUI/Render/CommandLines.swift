/// A one-line shell command laid out as a script: one option per line, joined by ` \` continuations, so a
/// mouse selection of the lines pastes as a command that runs.
enum CommandLines {
    /// Options that take no value, so the word after them starts a new line.
    private static let flags: Set<String> = [
        "-s", "-S", "-sS", "-v", "-L", "-k", "-i", "--fail", "--fail-with-body", "--compressed", "--silent",
        "--show-error", "--http1.1", "--http2",
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
