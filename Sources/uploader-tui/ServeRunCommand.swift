import ArgumentParser

/// `uploader-tui _serve-run ID ARGS…`: the run process an interactive run starts (issue 18); not for people.
struct ServeRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_serve-run", abstract: "The run process of an interactive run (internal).",
        shouldDisplay: false)

    @Argument(help: "The run's ID.")
    var id: String

    @Argument(parsing: .captureForPassthrough, help: "The upload's arguments as typed.")
    var arguments: [String] = []
}
