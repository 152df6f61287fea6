import Foundation
import UploadDomain

/// A setting's value, from a file or a command line.
public enum SettingValue: Sendable, Equatable {
    case text(String)
    case flag(Bool)
    /// A repeatable option's values, each as it is written after `-H` or `-F`.
    case list([String])

    /// False for a flag that is off; such a value picks nothing of an exclusive group (`ProfileKey.exclusiveGroups`).
    var isOn: Bool { self != .flag(false) }

    /// The arguments that give this value to `key`'s option; none for a flag that is off.
    func arguments(for key: ProfileKey) -> [String] {
        switch self {
        case .text(let text):
            // `--name=value` so a value starting with '-' is not read as an option.
            return key.long.map { ["--\($0)=\(text)"] } ?? [key.spelling, text]
        case .flag(let on):
            return on ? [key.spelling] : []
        case .list(let values):
            return values.flatMap { [key.spelling, $0] }
        }
    }

    /// The value as `config show` prints it, with credentials masked.
    func shown(for key: ProfileKey) -> String {
        switch self {
        case .text(let text):
            if key.isSecret { return "****" }
            return text.contains("://") ? Redactor.url(text).replacingOccurrences(of: "REDACTED", with: "****") : text
        case .flag(let on):
            return on ? "true" : "false"
        case .list(let values):
            return values.map { Self.masked($0, key: key) }.joined(separator: ", ")
        }
    }

    /// True when the value is a credential: a token, a header such as Authorization, a field such as password.
    func holdsSecret(for key: ProfileKey) -> Bool {
        if key.isSecret { return true }
        // `shown` masks a line that is not `Name: value` whole, as it may be a bare token; it holds a credential
        // when its name says so, as `Authorization Bearer …` does and `bad header` does not, or when it is one word.
        if case .list(let values) = self, key.kind == .list(separator: ": ") {
            return values.contains { value in
                value.split(whereSeparator: \.isNewline).contains { line in
                    let word = line.drop { $0 == " " || $0 == "\t" }
                    let name = word.prefix { $0 != ":" && $0 != " " && $0 != "\t" }
                    // One word with no colon is a bare token pasted as a header.
                    let bare = name.count == word.count && !name.isEmpty
                    return bare || Redactor.isSecretName(String(name))
                }
            }
        }
        return shown(for: key).contains("****")
    }

    /// A `-H` or `-F` entry with its value masked when its name says it is a credential, by the rules the command
    /// line is masked with.
    private static func masked(_ entry: String, key: ProfileKey) -> String {
        switch key.kind {
        case .list(separator: ": "): Redactor.maskedHeader(entry)
        case .list(separator: "="): Redactor.maskedField(entry)
        default: entry
        }
    }

    /// The name part of a list entry (`X-Team` of `X-Team: pets`, `album` of `album=pets`), for overriding by name.
    static func entryName(_ entry: String, separator: String) -> String {
        let mark = separator.first!
        return String(entry.prefix { $0 != mark }).trimmingCharacters(in: .whitespaces).lowercased()
    }
}
