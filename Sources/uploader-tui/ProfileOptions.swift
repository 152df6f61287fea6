import ArgumentParser
import Foundation
import UploaderCLI

/// `-p NAME` and `--config PATH`. They are read from the raw arguments before parsing (`ProfileArguments`); they
/// are declared here so ArgumentParser accepts them and lists them in help.
struct ProfileOptions: ParsableArguments {
    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Use this profile of the config file; flags given here override it (default: $UPLOADER_PROFILE).",
            valueName: "name"),
        completion: .custom { words, _, _ in ProfileNames.completing(words) })
    var profile: String?

    @Option(
        help: ArgumentHelp(
            "The profiles file (default: $XDG_CONFIG_HOME/uploader-tui/config.toml, else ~/.config/…).",
            valueName: "path"),
        completion: .file(extensions: ["toml"]))
    var config: String?
}

/// The profiles a shell completes after `-p`: those of the file `--config` names on the command line, else of the
/// default one.
enum ProfileNames {
    static func completing(_ words: [String]) -> [String] {
        let environment = ProcessInfo.processInfo.environment
        var path = ConfigLocation.defaultPath(environment: environment)
        for (index, word) in words.enumerated() {
            if word == "--config", words.indices.contains(index + 1) {
                path = words[index + 1]
            } else if word.hasPrefix("--config=") {
                path = String(word.dropFirst("--config=".count))
            }
        }
        path = ConfigLocation.expanding(path, environment: environment)
        guard let file = try? ConfigFile.load(path: path, shownPath: path, required: false) else { return [] }
        return file.profiles.keys.sorted()
    }
}
