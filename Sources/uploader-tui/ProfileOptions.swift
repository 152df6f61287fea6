import ArgumentParser

/// `-p NAME` and `--config PATH`. They are read from the raw arguments before parsing (`ProfileArguments`); they
/// are declared here so ArgumentParser accepts them and lists them in help.
struct ProfileOptions: ParsableArguments {
    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Use this profile of the config file; flags given here override it (default: $UPLOADER_PROFILE).",
            valueName: "name"))
    var profile: String?

    @Option(
        help: ArgumentHelp(
            "The profiles file (default: $XDG_CONFIG_HOME/uploader-tui/config.toml, else ~/.config/…).",
            valueName: "path"))
    var config: String?
}
