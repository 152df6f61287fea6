import ArgumentParser
import Foundation
import UploadDomain
import UploaderCLI

/// `uploader-tui config show|path`: the profiles file and what it sets.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the settings a run would use and where each comes from, or where the profiles file lives.",
        subcommands: [ConfigShowCommand.self, ConfigPathCommand.self])
}

/// `uploader-tui config show [-p NAME] [--json] [UPLOAD OPTIONS…]`.
struct ConfigShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print every upload setting, its value (credentials masked) and where it comes from.",
        discussion: "Sources: flag, profile NAME (config.toml:LINE), defaults (config.toml:LINE), built-in.")

    @OptionGroup(title: "Profiles (config.toml)")
    var profiles: ProfileOptions

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Argument(parsing: .allUnrecognized, help: "Upload options, shown as they would override the profile.")
    var options: [String] = []

    /// Prints the table; exit 2 for a broken file, an unknown profile or upload options that do not parse.
    func execute(environment: [String: String]) throws -> ExitStatus {
        var typed = CommandLineSettings(arguments: options)
        typed.profile = profiles.profile
        typed.configPath = profiles.config
        let (file, profile): (ConfigFile?, String?)
        let effective: EffectiveSettings
        do {
            (file, profile) = try ProfileArguments.load(typed, environment: environment)
            effective = try EffectiveSettings(file: file, profile: profile, commandLine: typed)
        } catch {
            // A broken file is a usage error here too (exit 2), as for a run.
            throw UsageError(description: error.description)
        }
        // What a run would refuse is refused here, said with the file's line when the file set it.
        let origins = ProfileArguments.FileOrigins(effective)
        do {
            let command = try UploadCommand.parse(effective.fileArguments + options)
            try TLSOptions.checkFiles(of: command.checkedOptions(environment: environment).engineOptions)
        } catch let error as UsageError {
            throw UsageError(description: origins.attributed(error.description))
        } catch {
            throw UsageError(description: origins.attributed(UploadCommand.message(for: error)))
        }
        let builtIn = Self.builtInDefaults()
        let given = Dictionary(uniqueKeysWithValues: effective.settings.map { ($0.key.name, $0) })
        let fromEnvironment = Self.environmentDefaults(environment)
        let rows = ProfileKey.all.map { key -> (key: String, value: String, source: String) in
            if let setting = given[key.name] {
                return (key.name, setting.shownValue, setting.origin.description)
            }
            if let found = fromEnvironment[key.name] { return (key.name, found.value, found.source) }
            let value = key.kind == .flag ? "false" : builtIn[key.spelling] ?? ""
            return (key.name, value, EffectiveSettings.Origin.builtIn.description)
        }
        let fileName =
            file?.shownPath
            ?? ConfigLocation.shown(
                ConfigLocation.defaultPath(environment: environment), environment: environment)
        if json {
            let object: [String: Any] = [
                "file": fileName, "file_exists": file != nil, "profile": profile as Any,
                "settings": rows.map { ["key": $0.key, "value": $0.value, "source": $0.source] },
            ]
            let data = try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
            return .success
        }
        print("file: \(fileName)\(file == nil ? " (none)" : "")" + (profile.map { "  profile: \($0)" } ?? ""))
        let keyWidth = rows.map(\.key.count).max() ?? 0
        let valueWidth = min(48, rows.map(\.value.count).max() ?? 0)
        for row in rows {
            let value = row.value.isEmpty ? "-" : row.value
            print(Self.pad(row.key, keyWidth) + "  " + Self.pad(value, valueWidth) + "  " + row.source)
        }
        return .success
    }

    /// What a run takes from the environment (and the aws CLI's config) for a setting no flag or profile gives.
    private static func environmentDefaults(_ environment: [String: String]) -> [String: (
        value: String, source: String
    )] {
        var found: [String: (value: String, source: String)] = [:]
        if environment["UPLOADER_TOKEN"].map({ !$0.isEmpty }) == true { found["token"] = ("****", "$UPLOADER_TOKEN") }
        let s3 = S3Defaults(environment: environment)
        if let endpoint = s3.endpoint {
            found["endpoint_url"] = (Sanitizer.displayName(Redactor.url(endpoint.value)), endpoint.source)
        }
        found["region"] = s3.region.map { (Sanitizer.displayName($0.value), $0.source) } ?? ("us-east-1", "built-in")
        return found
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Each upload option's default, by spelling (`--retries`: "5"), read from ArgumentParser's description of the
    /// command (`upload --experimental-dump-help`, whose "command" is upload), so defaults are written only once.
    private static func builtInDefaults() -> [String: String] {
        let dump: String
        do {
            _ = try UploaderCommand.parseAsRoot(["upload", "--experimental-dump-help"])
            return [:]
        } catch {
            dump = UploaderCommand.fullMessage(for: error)
        }
        guard let root = try? JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any],
            let command = root["command"] as? [String: Any],
            let arguments = command["arguments"] as? [[String: Any]]
        else { return [:] }
        var defaults: [String: String] = [:]
        for argument in arguments {
            guard let value = argument["defaultValue"] as? String,
                let names = argument["names"] as? [[String: String]]
            else { continue }
            for name in names {
                defaults[(name["kind"] == "short" ? "-" : "--") + (name["name"] ?? "")] = value
            }
        }
        return defaults
    }
}

/// `uploader-tui config path`: where the profiles file is looked for.
struct ConfigPathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path", abstract: "Print the path of the profiles file (whether or not it exists).")

    func execute(environment: [String: String]) -> ExitStatus {
        print(ConfigLocation.defaultPath(environment: environment))
        return .success
    }
}
