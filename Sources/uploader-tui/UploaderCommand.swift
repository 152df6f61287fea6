import ArgumentParser
import Foundation
import RunService
import UploadData
import UploadDomain
import UploaderCLI

/// `uploader-tui`: uploads by default; `delete` removes stored objects. It only parses and dispatches.
@main
struct UploaderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uploader-tui",
        abstract: "A terminal upload manager: files and folders over HTTP or to S3, with live progress.",
        discussion: """
            Exit codes: 0 all done or skipped, 1 some failed or cancelled, 2 usage error, unusable journal or no \
            libcurl, 3 nothing to upload, 4 no such run (attach, stop), 5 run refused (another user's, another \
            protocol version), 130 interrupted.
            """,
        version: UploaderVersion.current,
        subcommands: [
            UploadCommand.self, DeleteCommand.self, HistoryCommand.self, ConfigCommand.self, AttachCommand.self,
            PsCommand.self, StopCommand.self, ServeRunCommand.self,
        ],
        defaultSubcommand: UploadCommand.self)

    /// Parses by hand so every usage error exits with 2, as documented, not ArgumentParser's 64.
    static func main() async {
        // First: libcurl then loads and warms up, and the journal gets prepared, while the arguments are parsed.
        let journal = JournalOpening(first: { _ = CurlEngine.warmUp() })
        var parsed: any ParsableCommand
        let environment = ProcessInfo.processInfo.environment
        CommandLineSecrets.hide()
        if let script = completionScript(Array(CommandLine.arguments.dropFirst())) {
            print(script, terminator: "")
            ProcessExit.now(ExitStatus.success.rawValue)
        }
        let (arguments, origins): ([String], ProfileArguments.FileOrigins)
        do {
            (arguments, origins) = try ProfileArguments.apply(
                to: Array(CommandLine.arguments.dropFirst()), environment: environment)
        } catch {
            FileHandle.standardError.write(Data("uploader-tui: \(Sanitizer.lines("\(error)"))\n".utf8))
            ProcessExit.now(ExitStatus.usage.rawValue)
        }
        if let unknown = unknownHelpTopic(arguments) {
            FileHandle.standardError.write(Data("uploader-tui: \(unknown)\n".utf8))
            ProcessExit.now(ExitStatus.usage.rawValue)
        }
        do {
            parsed = try parse(arguments)
        } catch {
            exit(parsing: error)
        }
        // What the user typed, told apart from what a profile put before it: options of another mode are refused.
        let typed = UploadCommand.typedSettings(Array(CommandLine.arguments.dropFirst()))
        let status: ExitStatus
        do {
            switch parsed {
            case let upload as UploadCommand where upload.dryRun:
                let plan = try upload.makePlan(
                    journal: journal, environment: environment, typed: typed, origins: origins)
                status = try await DryRun(plan: plan).run()
            case let upload as UploadCommand:
                // An interactive run starts its run process before anything else, which checks and scans (issue 18).
                if let launcher = try RunLauncher.forInteractive(upload, environment: environment) {
                    journal.skip()
                    status = try await launcher.start()
                } else {
                    let plan = try upload.makePlan(
                        journal: journal, environment: environment, typed: typed, origins: origins)
                    status = try await UploadRun(plan: plan).run()
                }
            case let serve as ServeRunCommand:
                status = try await serveRun(serve, journal: journal, environment: environment)
            case let attach as AttachCommand:
                journal.skip()
                status = try await attach.execute(environment: environment)
            case let ps as PsCommand:
                journal.skip()
                status = ps.execute(environment: environment)
            case let stop as StopCommand:
                journal.skip()
                status = try await stop.execute(environment: environment)
            case let delete as DeleteCommand:
                journal.skip()
                status = try await delete.execute(origins: origins)
            case let history as HistoryCommand:
                journal.skip()
                status = try history.execute()
            case let show as ConfigShowCommand:
                journal.skip()
                status = try show.execute(environment: environment)
            case let path as ConfigPathCommand:
                journal.skip()
                status = path.execute(environment: environment)
            default:
                // `--help`, `-h` and `help [command]` parse to ArgumentParser's help command, whose `run` throws the
                // request for the right command's help.
                do { try parsed.run() } catch { exit(parsing: error) }
                status = .usage
            }
        } catch {
            // Whatever the error quotes of the user's (a journal's path) is escaped, as in every other line.
            let message = Sanitizer.lines(origins.attributed("\(error)"))
            FileHandle.standardError.write(Data("uploader-tui: \(message)\n".utf8))
            status = error is UsageError ? .usage : .nothingToUpload
            if let nothing = error as? NothingToUpload, let upload = parsed as? UploadCommand {
                nothing.writeResults(for: upload)
                if upload.json { await nothing.writeNDJSON(for: upload, exitCode: status.rawValue) }
            }
        }
        ProcessExit.now(status.rawValue)
    }

    /// `parseAsRoot`, but an upload's arguments (no subcommand named, no help or version asked for) go straight to
    /// `UploadCommand`: the root's parse first reflects over every subcommand's options, dynamic casts that each scan
    /// the binary's protocol conformances, before the first request. Should that parse fail, the root parses again,
    /// so help and usage errors read as they always did.
    private static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        if let first = arguments.first, !rootWords.contains(first),
            !arguments.contains(where: { rootFlags.contains($0) }),
            let upload = try? UploadCommand.parseAsRoot(arguments) as? UploadCommand
        {
            return upload
        }
        return try parseAsRoot(arguments)
    }

    /// `help WORD…` naming a subcommand there is not, said in one line with those there are; nil for any other
    /// arguments. ArgumentParser answers it with the top help and exit 0, as if the help had been found.
    static func unknownHelpTopic(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        var command: any ParsableCommand.Type = UploaderCommand.self
        var asked = "help"
        for word in arguments.dropFirst() where !word.hasPrefix("-") {
            let subcommands = command.configuration.subcommands
            // A command without subcommands takes no topic: its help is what is asked for.
            guard !subcommands.isEmpty else { return nil }
            guard let next = subcommands.first(where: { $0._commandName == word }) else {
                let valid = subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
                return "\(asked): unknown subcommand '\(Sanitizer.displayName(word))'; valid: "
                    + valid.joined(separator: ", ")
            }
            command = next
            asked += " " + word
        }
        return nil
    }

    /// `--generate-completion-script SHELL` (or `=SHELL`) alone: the script, taught upload's short form.
    private static func completionScript(_ arguments: [String]) -> String? {
        let flag = "--generate-completion-script"
        let shell: String
        switch arguments.count {
        case 2 where arguments[0] == flag: shell = arguments[1]
        case 1 where arguments[0].hasPrefix(flag + "="): shell = String(arguments[0].dropFirst(flag.count + 1))
        default: return nil
        }
        return CompletionScript.generate(shell)
    }

    /// The subcommands' names (and `help`), which only the root parse knows; `_commandName` is ArgumentParser's own
    /// (the configured name, else the one it derives from the type).
    static let rootWords: Set<String> = Set(
        configuration.subcommands.map { $0._commandName } + ["help"])

    /// What the root answers itself.
    static let rootFlags: Set<String> = [
        "-h", "--help", "-help", "--version", "--generate-completion-script", "---completion",
        "--experimental-dump-help",
    ]

    /// The run process of an interactive run: the typed arguments parsed again, profiles included (issue 18).
    private static func serveRun(
        _ serve: ServeRunCommand, journal: JournalOpening, environment: [String: String]
    ) async throws -> ExitStatus {
        guard RunDirectory.isValid(serve.id) else { throw UsageError(description: "_serve-run: not a run ID") }
        guard let typed = ServeRunCommand.takeArguments() else {
            throw UsageError(description: "_serve-run: no arguments in \(ServeRunCommand.argumentsVariable)")
        }
        // Spawned from /proc/self/exe, the process would be "exe" to ps, top and pgrep. The main thread's name,
        // which a thread of the same process may write.
        try? "uploader-tui".write(toFile: "/proc/self/comm", atomically: false, encoding: .utf8)
        var environment = environment
        environment[ServeRunCommand.argumentsVariable] = nil
        let (arguments, origins): ([String], ProfileArguments.FileOrigins)
        do {
            (arguments, origins) = try ProfileArguments.apply(to: typed, environment: environment)
        } catch {
            throw UsageError(description: "\(error)")
        }
        guard let upload = try parseAsRoot(arguments) as? UploadCommand else {
            throw UsageError(description: "_serve-run: not the arguments of an upload")
        }
        var plan: UploadPlan
        do {
            plan = try upload.makePlan(
                journal: journal, environment: environment, typed: UploadCommand.typedSettings(typed),
                origins: origins)
            plan.service = serve.id
            return try await UploadRun(plan: plan).run()
        } catch let error as UsageError {
            throw UsageError(description: origins.attributed(error.description))
        } catch let nothing as NothingToUpload {
            nothing.writeResults(for: upload)
            throw nothing
        }
    }

    /// Prints what ArgumentParser asked for (help, the version) and exits 0, or names the usage error and exits 2.
    private static func exit(parsing error: any Error) -> Never {
        if exitCode(for: error) == .success {
            print(fullMessage(for: error))
            ProcessExit.now(0)
        }
        let said = Sanitizer.lines(CommandLineSecrets.redacted(message(for: error)))
        FileHandle.standardError.write(Data("uploader-tui: \(said)\n".utf8))
        ProcessExit.now(ExitStatus.usage.rawValue)
    }
}
