import Foundation
import UploaderCLI

/// Puts the settings of the profiles file (its `[defaults]` and the profile `-p` names) in front of the user's
/// arguments, before ArgumentParser parses them: see `EffectiveSettings` for the precedence.
enum ProfileArguments {
    /// Options that print something and run nothing: the arguments are left as they are.
    private static let informational: Set<String> = [
        "-h", "--help", "--version", "--experimental-dump-help", "--generate-completion-script", "---completion",
    ]

    /// Where each option the profiles file set came from, so an error about its value names the file's line.
    struct FileOrigins {
        /// `--concurrency` (or `-H`): `config.toml:2: [defaults]`.
        var places: [String: String] = [:]
        /// The origin of each setting the file gave, by key (`token`).
        private var origins: [String: EffectiveSettings.Origin] = [:]

        init() {}

        init(_ effective: EffectiveSettings) {
            for setting in effective.settings {
                guard let place = setting.origin.fileLocation else { continue }
                origins[setting.key.name] = setting.origin
                if let long = setting.key.long { places["--" + long] = place }
                if let short = setting.key.short { places["-" + String(short)] = place }
            }
        }

        /// A usage error about an option the file set, said with the file's line: the user never typed it.
        func attributed(_ message: String) -> String {
            guard message.hasPrefix("-") else { return message }
            let option = String(message.prefix { $0 != " " && $0 != ":" && $0 != "=" })
            return places[option].map { "\($0): \(message)" } ?? message
        }

        /// Where the token requests carry comes from, as a 401's hint names it (`UploadError.tokenOrigin`): the
        /// token source when there is one (a refused token was refreshed from it), else the token's setting or
        /// `UPLOADER_TOKEN`; nil when there is none. Given the options as parsed, the file's settings included.
        func tokenOrigin(
            token: String?, tokenCommand: String?, refreshURL: String?, environment: [String: String]
        ) -> String? {
            func named(_ key: String, typed spelling: String) -> String {
                origins[key]?.naming(key) ?? spelling
            }
            if tokenCommand != nil { return named("token_command", typed: "--token-command") }
            if refreshURL != nil { return named("refresh_url", typed: "--refresh-url") }
            if token != nil { return named("token", typed: "--token") }
            return environment["UPLOADER_TOKEN"]?.isEmpty == false ? "UPLOADER_TOKEN" : nil
        }
    }

    /// The arguments to parse: unchanged without a profiles file, else with the file's settings inserted after the
    /// subcommand's name; and where those settings came from.
    /// - Throws: `ConfigError` for a broken file or an unknown profile.
    static func apply(
        to arguments: [String], environment: [String: String]
    ) throws(ConfigError) -> (arguments: [String], origins: FileOrigins) {
        let options = arguments.prefix { $0 != "--" }
        guard informational.isDisjoint(with: options) else { return (arguments, FileOrigins()) }
        let command: String
        let rest: [String]
        switch arguments.first {
        case "upload", "delete":
            command = arguments[0]
            rest = Array(arguments.dropFirst())
        case "history", "config", "help", "attach", "ps", "stop", "_serve-run":
            return (arguments, FileOrigins())
        default:
            command = "upload"
            rest = arguments
        }
        let typed = CommandLineSettings(arguments: rest)
        let (file, profile) = try load(typed, environment: environment)
        guard file != nil else { return (arguments, FileOrigins()) }
        let effective = try EffectiveSettings(
            file: file, profile: profile, commandLine: typed, forDelete: command == "delete")
        return ([command] + effective.fileArguments + rest, FileOrigins(effective))
    }

    /// The profiles file and the profile chosen (`-p`, else `$UPLOADER_PROFILE`); warns on stderr when the file
    /// holds a credential and others may read it.
    /// - Throws: `ConfigError` for a broken file, or a missing one when `--config` or a profile names it.
    static func load(
        _ typed: CommandLineSettings, environment: [String: String]
    ) throws(ConfigError) -> (ConfigFile?, String?) {
        let profile = typed.profile ?? environment["UPLOADER_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        let path =
            typed.configPath.map { ConfigLocation.expanding($0, environment: environment) }
            ?? ConfigLocation.defaultPath(environment: environment)
        let shownPath = ConfigLocation.shown(path, environment: environment)
        if let profile, typed.configPath == nil, !FileManager.default.fileExists(atPath: path) {
            throw ConfigError(
                code: .unknownProfile, file: shownPath, line: nil,
                reason: "no profile '\(profile)': there is no \(shownPath)")
        }
        let file = try ConfigFile.load(
            path: path, shownPath: shownPath, required: typed.configPath != nil || profile != nil)
        if let file, file.holdsSecret, let mode = permissions(of: path), mode & 0o077 != 0 {
            let octal = String(mode, radix: 8)
            FileHandle.standardError.write(
                Data(
                    ("warning: \(shownPath) holds a token or password and is readable by others (mode "
                        + "\(String(repeating: "0", count: max(0, 4 - octal.count)) + octal)); chmod 600 it, or use "
                        + "token_command\n").utf8))
        }
        return (file, profile)
    }

    private static func permissions(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o777
    }
}
