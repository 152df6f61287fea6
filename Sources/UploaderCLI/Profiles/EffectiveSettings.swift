/// The settings a run uses and where each came from: command-line flag > the chosen profile > `[defaults]` >
/// built-in.
///
/// The file's settings reach ArgumentParser as arguments placed before the user's (`fileArguments`), so they are
/// checked exactly as typed ones are. A setting the command line gives is left out of them, so nothing depends on
/// how ArgumentParser treats an option given twice. Repeatable options (`headers`, `fields`) add up, as curl's
/// `-H` adds to the headers of its config file, except that a header or field the command line names replaces the
/// file's of the same name. A destination on the command line (`--to`, `--put` or `--presign`) replaces the file's,
/// and a profile's replaces `[defaults]`' (likewise `token_command` and `refresh_url`: `ProfileKey.exclusiveGroups`).
public struct EffectiveSettings: Sendable {
    /// Where a setting's value came from.
    public enum Origin: Sendable, Equatable, CustomStringConvertible {
        case flag
        case profile(String, file: String, line: Int?)
        case defaults(file: String, line: Int?)
        /// Some entries from the file, more from the command line (headers, fields).
        indirect case combined(Origin)
        case builtIn

        public var description: String {
            switch self {
            case .flag: "flag"
            case .profile(let name, let file, let line): "profile \(name) (\(Self.shortPlace(file, line)))"
            case .defaults(let file, let line): "defaults (\(Self.shortPlace(file, line)))"
            case .combined(let origin): "\(origin) + flag"
            case .builtIn: "built-in"
            }
        }

        /// Where in the file, for an error about the value: `~/.config/uploader-tui/config.toml:5: profile 'pets'`,
        /// the file named as every config error names it (`ConfigError`); nil for a flag.
        public var fileLocation: String? {
            switch self {
            case .profile(let name, let file, let line): "\(Self.place(file, line)): profile '\(name)'"
            case .defaults(let file, let line): "\(Self.place(file, line)): [defaults]"
            case .flag, .combined, .builtIn: nil
            }
        }

        /// The setting `key` named with where the file sets it, for a hint about its value:
        /// `token of profile pets, ~/.config/uploader-tui/config.toml:5`; nil for a flag.
        public func naming(_ key: String) -> String? {
            switch self {
            case .profile(let name, let file, let line): "\(key) of profile \(name), \(Self.place(file, line))"
            case .defaults(let file, let line): "\(key) of [defaults], \(Self.place(file, line))"
            case .flag, .combined, .builtIn: nil
            }
        }

        /// `config.toml:5` in `config show`'s table, whose first line names the whole path.
        private static func shortPlace(_ file: String, _ line: Int?) -> String {
            place(file.split(separator: "/").last.map(String.init) ?? file, line)
        }

        private static func place(_ file: String, _ line: Int?) -> String {
            line.map { "\(file):\($0)" } ?? file
        }
    }

    /// One setting given by a flag or the file.
    public struct Setting: Sendable, Equatable {
        public let key: ProfileKey
        public let value: SettingValue
        public let origin: Origin

        /// The value with credentials masked.
        public var shownValue: String { value.shown(for: key) }
    }

    /// Settings given by a flag or the file, in the order of `ProfileKey.all`.
    public let settings: [Setting]
    /// The file's settings as arguments, to be placed before the user's.
    public let fileArguments: [String]

    /// - Parameters:
    ///   - file: The profiles file, if there is one.
    ///   - profile: The profile chosen, if any.
    ///   - commandLine: What the user's arguments set.
    ///   - forDelete: Only the settings `delete` takes apply.
    /// - Throws: `ConfigError.unknownProfile`.
    public init(
        file: ConfigFile?, profile: String?, commandLine: CommandLineSettings, forDelete: Bool = false
    ) throws(ConfigError) {
        var fromFile: [String: (value: SettingValue, origin: Origin)] = [:]
        if let file, let defaults = file.defaults {
            for entry in defaults.entries {
                fromFile[entry.key.name] = (entry.value, .defaults(file: file.shownPath, line: entry.line))
            }
        }
        if let profile {
            guard let file else {
                throw ConfigError(
                    code: .unknownProfile, file: "", line: nil,
                    reason: "no profile '\(profile)': there is no config file (see uploader-tui config path)")
            }
            let section = try file.profile(profile)
            // A profile's destination replaces [defaults]' whichever kind it is, as a flag's replaces the file's.
            for entry in section.entries where entry.value.isOn {
                for name in ProfileKey.exclusiveGroup(of: entry.key.name) { fromFile[name] = nil }
            }
            // A profile's value replaces the default's whole, lists included, so a profile can drop a default header.
            for entry in section.entries {
                fromFile[entry.key.name] = (
                    entry.value, .profile(profile, file: file.shownPath, line: entry.line)
                )
            }
        }
        let typed = commandLine.values
        for (typedName, value) in typed where value.isOn {
            for name in ProfileKey.exclusiveGroup(of: typedName) { fromFile[name] = nil }
        }

        var settings: [Setting] = []
        var arguments: [String] = []
        for key in ProfileKey.all where !forDelete || key.forDelete {
            let flag = typed[key.name]
            guard var file = fromFile[key.name] else {
                if let flag { settings.append(Setting(key: key, value: flag, origin: .flag)) }
                continue
            }
            switch (file.value, flag) {
            case (.list(let entries), .list(let added)?):
                let kept: [String]
                switch key.kind {
                case .list(let separator):
                    let replaced = Set(added.map { SettingValue.entryName($0, separator: separator) })
                    kept = entries.filter { !replaced.contains(SettingValue.entryName($0, separator: separator)) }
                case .values:
                    kept = entries.filter { !added.contains($0) }
                default:
                    preconditionFailure("Invalid state: list value")
                }
                file.value = .list(kept)
                let origin: Origin = kept.isEmpty ? .flag : .combined(file.origin)
                settings.append(Setting(key: key, value: .list(kept + added), origin: origin))
            case (_, let flag?):
                settings.append(Setting(key: key, value: flag, origin: .flag))
                continue
            case (_, nil):
                settings.append(Setting(key: key, value: file.value, origin: file.origin))
            }
            arguments += file.value.arguments(for: key)
        }
        self.settings = settings
        self.fileArguments = arguments
    }
}
