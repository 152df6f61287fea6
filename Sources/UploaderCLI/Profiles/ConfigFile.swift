import Foundation
import TOMLKit

/// A parsed `config.toml`: an optional `[defaults]` section that applies to every run, and `[profile.NAME]`
/// sections chosen with `-p NAME`. Every key and value is checked on reading, so a broken file stops any run.
public struct ConfigFile: Sendable, Equatable {
    /// One setting as the file gives it.
    public struct Entry: Sendable, Equatable {
        public let key: ProfileKey
        public let value: SettingValue
        public let line: Int?
    }

    /// `[defaults]` or one `[profile.NAME]`.
    public struct Section: Sendable, Equatable {
        /// nil for `[defaults]`.
        public let profile: String?
        public let entries: [Entry]
    }

    /// The path as shown to the user.
    public let shownPath: String
    public let defaults: Section?
    public let profiles: [String: Section]

    /// True when some setting holds a credential in clear: a token or an Authorization-like header.
    public var holdsSecret: Bool {
        ([defaults].compactMap { $0 } + Array(profiles.values)).flatMap(\.entries).contains {
            $0.value.holdsSecret(for: $0.key)
        }
    }

    /// Parses and checks `text`.
    /// - Parameter shownPath: The path named in errors.
    /// - Throws: `ConfigError` for TOML syntax, an unknown section or setting, a setting outside any section, a value
    ///   of the wrong type, or two settings of a section that exclude each other; the first by line.
    public init(text: String, shownPath: String) throws(ConfigError) {
        self.shownPath = shownPath
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(
                code: .syntax, file: shownPath, line: error.source.begin.line, reason: Self.reason(error.description))
        } catch {
            throw ConfigError(code: .syntax, file: shownPath, line: nil, reason: "\(error)")
        }
        let lines = TOMLKeyLines(text)
        var problems: [ConfigError] = []
        func problem(_ code: ConfigError.Code, _ path: [String], _ reason: String) {
            problems.append(ConfigError(code: code, file: shownPath, line: lines.line(of: path), reason: reason))
        }

        var defaults: Section?
        var profiles: [String: Section] = [:]
        for (name, value) in root {
            switch (name, value.table) {
            case ("defaults", let table?):
                defaults = Self.section(table, profile: nil, path: [name], lines: lines, problem: problem)
            case ("profile", let table?):
                for (profile, value) in table {
                    guard let section = value.table else {
                        problem(
                            .wrongType, [name, profile],
                            "profile.\(profile) must be a table of settings ([profile.\(profile)]), not "
                                + Self.article(value.type.description))
                        continue
                    }
                    profiles[profile] = Self.section(
                        section, profile: profile, path: [name, profile], lines: lines, problem: problem)
                }
            case ("defaults", nil), ("profile", nil):
                problem(
                    .wrongType, [name],
                    "'\(name)' must be a section, [\(name == "profile" ? "profile.NAME" : name)], not "
                        + Self.article(value.type.description))
            case (_, nil):
                // A key before the first section header belongs to no section.
                let hint = ProfileKey.named(name) == nil ? ProfileKey.suggestion(for: name) : nil
                problem(
                    .unknownKey, [name],
                    "'\(name)' is outside any section: settings go under [defaults] or [profile.NAME]"
                        + (hint.map { " (did you mean '\($0)'?)" } ?? ""))
            default:
                problem(.unknownKey, [name], "unknown section '\(name)' (expected [defaults] or [profile.NAME])")
            }
        }
        if let first = problems.min(by: { ($0.line ?? .max) < ($1.line ?? .max) }) { throw first }
        self.defaults = defaults
        self.profiles = profiles
    }

    /// Reads the file at `path`; nil when there is none and `required` is false.
    /// - Throws: `ConfigError` when it cannot be read or is broken.
    public static func load(path: String, shownPath: String, required: Bool) throws(ConfigError) -> ConfigFile? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            guard required else { return nil }
            throw ConfigError(code: .unreadable, file: shownPath, line: nil, reason: "\(shownPath): no such file")
        }
        guard !isFolder.boolValue else {
            throw ConfigError(
                code: .unreadable, file: shownPath, line: nil, reason: "\(shownPath): is a folder, not a TOML file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(code: .unreadable, file: shownPath, line: nil, reason: "\(shownPath): cannot be read")
        }
        return try ConfigFile(text: String(decoding: data, as: UTF8.self), shownPath: shownPath)
    }

    /// The profile `name`.
    /// - Throws: `ConfigError.unknownProfile` listing the profiles there are.
    public func profile(_ name: String) throws(ConfigError) -> Section {
        if let section = profiles[name] { return section }
        let known = profiles.keys.sorted()
        let list = known.isEmpty ? "it has none" : "profiles: " + known.joined(separator: ", ")
        throw ConfigError(
            code: .unknownProfile, file: shownPath, line: nil, reason: "no profile '\(name)' in \(shownPath) (\(list))")
    }

    private static func section(
        _ table: TOMLTable, profile: String?, path: [String], lines: TOMLKeyLines,
        problem: (ConfigError.Code, [String], String) -> Void
    ) -> Section {
        let owner = profile.map { "profile '\($0)'" } ?? "[defaults]"
        var entries: [Entry] = []
        var written: [String: String] = [:]
        for (name, value) in table {
            // A flag's opposite is a key too, as it is a flag (`--resume`): `resume = false` is `no_resume = true`.
            let inverse = ProfileKey.named(name) == nil ? ProfileKey.forInverseName(name) : nil
            guard let key = ProfileKey.named(name) ?? inverse else {
                let hint = ProfileKey.suggestion(for: name).map { " (did you mean '\($0)'?)" } ?? ""
                problem(.unknownKey, path + [name], "\(owner) has no setting '\(name)'\(hint)")
                continue
            }
            guard var converted = convert(value, for: key) else {
                problem(
                    .wrongType, path + [name],
                    "\(owner): \(name) takes \(expected(key.kind)), not \(Self.article(value.type.description))")
                continue
            }
            if inverse != nil, case .flag(let on) = converted { converted = .flag(!on) }
            if let other = written[key.name] {
                // `resume` and `no_resume` are one setting: which of the two wins would be a guess.
                let ordered = [other, name].sorted {
                    (lines.line(of: path + [$0]) ?? .max) < (lines.line(of: path + [$1]) ?? .max)
                }
                let (first, second) = (ordered[0], ordered[1])
                let line = lines.line(of: path + [first]).map { " (line \($0))" } ?? ""
                problem(
                    .conflicting, path + [second],
                    "\(owner) sets \(second) and \(first)\(line): they are one setting, keep one")
                continue
            }
            written[key.name] = name
            entries.append(Entry(key: key, value: converted, line: lines.line(of: path + [name])))
        }
        entries.sort { ($0.line ?? .max) < ($1.line ?? .max) }
        for group in ProfileKey.exclusiveGroups {
            let chosen = entries.filter { group.contains($0.key.name) && $0.value.isOn }
            guard chosen.count > 1 else { continue }
            let (first, second) = (chosen[0], chosen[1])
            problem(
                .conflicting, path + [second.key.name],
                "\(owner) sets \(second.key.name) and \(first.key.name)\(first.line.map { " (line \($0))" } ?? ""): "
                    + "use only one of \(Format.listed(group))")
        }
        return Section(profile: profile, entries: entries)
    }

    /// `to, put and presign`.
    private static func convert(_ value: any TOMLValueConvertible, for key: ProfileKey) -> SettingValue? {
        switch key.kind {
        case .text:
            if let text = value.string { return .text(text) }
            return value.int.map { .text(String($0)) }
        case .integer:
            return value.int.map { .text(String($0)) }
        case .number:
            if let number = value.int { return .text(String(number)) }
            return value.double.map { .text(String($0)) }
        case .flag:
            return value.bool.map { .flag($0) }
        case .list(let separator):
            if let table = value.table {
                var entries: [String] = []
                for (name, item) in table {
                    guard let text = item.string ?? item.int.map(String.init) else { return nil }
                    entries.append(name + separator + text)
                }
                return .list(entries)
            }
            return strings(value).map { .list($0) }
        case .values:
            return strings(value).map { .list($0) }
        case .commaList:
            return strings(value).map { .text($0.joined(separator: ",")) }
        }
    }

    /// A string, or an array of strings; nil for any other value.
    private static func strings(_ value: any TOMLValueConvertible) -> [String]? {
        if let text = value.string { return [text] }
        guard let array = value.array else { return nil }
        var entries: [String] = []
        for item in array {
            guard let text = item.string else { return nil }
            entries.append(text)
        }
        return entries
    }

    private static func expected(_ kind: ProfileKey.Kind) -> String {
        switch kind {
        // A text setting takes a whole number too (`concurrency = 2`, `batch = 10`).
        case .text: "a string or a whole number"
        case .integer: "an integer"
        case .number: "a number"
        case .flag: "true or false"
        case .list(let separator):
            "a table or an array of \"name\(separator)value\" strings"
        case .values, .commaList: "a string or an array of strings"
        }
    }

    private static func article(_ noun: String) -> String {
        ("aeiou".contains(noun.first ?? "x") ? "an " : "a ") + noun
    }

    /// toml++'s reason on one line, starting in lower case as it follows the line number.
    private static func reason(_ description: String) -> String {
        let firstLine = description.split(separator: "\n").first.map(String.init) ?? description
        return firstLine.prefix(1).lowercased() + firstLine.dropFirst()
    }
}
