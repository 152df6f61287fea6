import ArgumentParser
import Foundation

/// `uploader-tui _serve-run ID`: the run process an interactive run starts (issue 18); not for people. The upload's
/// arguments come in its environment (`argumentsVariable`), not on its command line, which every user of the
/// machine can read for as long as the run lasts: a `-H 'Authorization: …'` or a URL's key would be there.
struct ServeRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_serve-run", abstract: "The run process of an interactive run (internal).",
        shouldDisplay: false)

    /// The variable that carries the upload's arguments as typed, a JSON array of strings.
    static let argumentsVariable = "UPLOADER_RUN_ARGUMENTS"

    @Argument(help: "The run's ID.")
    var id: String

    /// The upload's arguments, taken out of the environment so no child of the run (a token command) inherits them.
    static func takeArguments() -> [String]? {
        guard let text = getenv(argumentsVariable).map({ String(cString: $0) }) else { return nil }
        unsetenv(argumentsVariable)
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String]
    }
}
