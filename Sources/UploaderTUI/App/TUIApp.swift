import Foundation
import UploadDomain

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The entry point of the terminal UI: model/update/render over a `Terminal`.
public enum TUIApp {
    /// Shows the batch on the process's terminal until the user quits (or the batch ends with `exitWhenDone`).
    ///
    /// The session must already be started. The terminal is restored on every way out, including
    /// task cancellation (the executable's SIGINT handling cancels the task).
    /// - Parameters:
    ///   - session: the running batch.
    ///   - configuration: header texts and behaviour.
    /// - Returns: whether the batch had finished when the screen closed.
    /// - Throws: `TerminalUnavailable` when there is no usable terminal (`TERM=dumb`, no TTY, `newterm` failed).
    public static func run(session: some UploadController, configuration: TUIConfiguration) async throws
        -> TUIOutcome
    {
        try checkTerminal()
        let noColor = getenv("NO_COLOR").map { String(cString: $0).isEmpty == false } ?? false
        let terminal: CursesTerminal
        do {
            terminal = try await CursesTerminal.start(
                useColor: configuration.useColor && !noColor, mouse: configuration.mouse)
        } catch var error as TerminalUnavailable {
            error.term = environmentTerm()
            throw error
        }
        return await run(controller: session, terminal: terminal, configuration: configuration)
    }

    /// Runs the loop on any terminal and closes it afterwards; the testable core of `run(session:configuration:)`.
    /// - Parameters:
    ///   - controller: the batch to show and command.
    ///   - terminal: where to draw and read events.
    ///   - configuration: header texts and behaviour.
    ///   - clock: time for the frame-rate limit.
    /// - Returns: whether the batch had finished when the loop ended.
    public static func run(
        controller: some UploadController, terminal: some Terminal, configuration: TUIConfiguration,
        clock: any UploadClock = SystemClock()
    ) async -> TUIOutcome {
        let capabilities = terminal.capabilities
        let depth =
            configuration.thumbnails != nil && capabilities.colorCount >= 256
            ? ColorDepth.of(
                environment: configuration.environment, unicode: capabilities.unicode,
                color: capabilities.color)
            : nil
        let renderer = ScreenRenderer(
            source: configuration.source, destination: configuration.destination,
            unicode: capabilities.unicode, useColor: capabilities.color, colorDepth: depth)
        var loop = AppLoop(
            controller: controller, terminal: terminal, renderer: renderer,
            exitWhenDone: configuration.exitWhenDone, notices: configuration.notices,
            thumbnails: depth == nil ? nil : configuration.thumbnails.map { ThumbnailCache(source: $0) }, clock: clock)
        loop.allowDetach(configuration.canDetach)
        if let others = configuration.otherScreens { loop.countOtherScreens(others) }
        loop.showReplay(configuration.isReplay)
        if let rates = configuration.recentRates { loop.seedRates(rates) }
        let outcome = await loop.run()
        await terminal.close()
        return outcome
    }

    /// Throws when stdin/stdout are not a terminal or `TERM` cannot draw a screen.
    /// - Throws: `TerminalUnavailable`.
    public static func checkTerminal() throws {
        let term = environmentTerm()
        guard let term, !term.isEmpty, term != "dumb" else {
            throw TerminalUnavailable(.dumbTerminal, term: term)
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalUnavailable(.notATerminal, term: term)
        }
    }

    private static func environmentTerm() -> String? {
        getenv("TERM").map { String(cString: $0) }
    }
}
