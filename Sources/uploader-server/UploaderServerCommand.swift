import ArgumentParser
import Foundation
import ReferenceServer

/// `uploader-server`: runs the reference upload server until SIGINT/SIGTERM.
@main
struct UploaderServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uploader-server",
        abstract: "Reference upload server for uploader-tui (multipart images, raw PUT files, presigned URLs).",
        discussion: """
            Stores POST /datasets/<id>/images (multipart/form-data) under <root>/datasets/<id>/ and
            PUT /files/<path> under <root>/files/. POST /presigned-urls issues signed upload tickets
            (PUT /objects/<key>?expires=&ct=&max=&sig=, no bearer token needed) stored under
            <root>/objects/<key>; GET/HEAD/DELETE /objects/<key> read and remove them.
            POST /auth/refresh trades a bearer token (even an expired one) for a fresh one.
            Uploads that carry an Idempotency-Key are stored once: a repeat gets the first answer again.
            GET /healthz answers "ok"; GET /_stats returns counters.
            Fault injection options make it a deliberately unreliable peer for client testing.
            """)

    @Option(help: "Interface to listen on.")
    var host = "127.0.0.1"

    @Option(help: "TCP port to listen on; 0 picks a free port (see --port-file).")
    var port = 8080

    @Option(help: "Directory where received files are stored.")
    var root = "./received"

    @Option(help: "Require 'Authorization: Bearer <token>' on every route but /healthz (default: $UPLOADER_SERVER_TOKEN).")
    var token: String?

    @Option(name: .customLong("token-ttl"), help: ArgumentHelp("Seconds a bearer token stays valid: --token from startup, tokens from POST /auth/refresh from issue (default: forever).", valueName: "seconds"))
    var tokenTTL: Double?

    @Option(name: .customLong("modeling-delay"), help: ArgumentHelp("Extra seconds to wait after the modeling step before answering an image upload.", valueName: "seconds"))
    var modelingDelay: Double = 0

    @Option(name: .customLong("fail-rate"), help: ArgumentHelp("Probability (0-1) that an upload is answered with --fail-status instead of being stored.", valueName: "p"))
    var failRate: Double = 0

    @Option(name: .customLong("fail-status"), help: ArgumentHelp("HTTP status used for injected failures.", valueName: "n"))
    var failStatus = 500

    @Option(name: .customLong("retry-after"), help: ArgumentHelp("Seconds to send as Retry-After on injected failures.", valueName: "s"))
    var retryAfter: Int?

    @Option(name: .customLong("reset-rate"), help: ArgumentHelp("Probability (0-1) that an upload's connection is dropped mid-request with no response.", valueName: "p"))
    var resetRate: Double = 0

    @Option(name: .customLong("stall-rate"), help: ArgumentHelp("Probability (0-1) that an upload stalls: one body chunk is read, then nothing is read or answered until the client gives up.", valueName: "p"))
    var stallRate: Double = 0

    @Option(name: .customLong("corrupt-rate"), help: ArgumentHelp("Probability (0-1) that a stored file gets a wrong byte; the sha256 and ETag reported are of the stored bytes, so a client's --verify catches it.", valueName: "p"))
    var corruptRate: Double = 0

    @Option(help: ArgumentHelp("Seed for the fault generator, for reproducible fault sequences.", valueName: "n"))
    var seed: UInt64?

    @Option(name: .customLong("ticket-ttl"), help: ArgumentHelp("Seconds an upload ticket from POST /presigned-urls stays valid (0 issues already-expired tickets).", valueName: "seconds"))
    var ticketTTL: Double = 900

    @Option(name: .customLong("ticket-secret"), help: ArgumentHelp("Secret that signs upload tickets, so tickets survive a restart (default: random per start).", valueName: "secret"))
    var ticketSecret: String?

    @Flag(name: .customLong("presign-count-mismatch"), help: "Test hook: POST /presigned-urls answers one item fewer than asked.")
    var presignCountMismatch = false

    @Flag(name: .customLong("presign-expired"), help: "Test hook: the first upload ticket issued for each filename is already expired; later ones are valid.")
    var presignExpired = false

    @Option(name: .customLong("idempotency-ttl"), help: ArgumentHelp("Seconds the answer to a request with an Idempotency-Key is kept for replaying to its repeats.", valueName: "seconds"))
    var idempotencyTTL: Double = 86_400

    @Option(name: .customLong("port-file"), help: ArgumentHelp("Write the bound port number to this file (atomically) once listening.", valueName: "path"))
    var portFile: String?

    func validate() throws {
        guard (0...1).contains(failRate), (0...1).contains(resetRate), (0...1).contains(stallRate),
            (0...1).contains(corruptRate)
        else {
            throw ValidationError("--fail-rate, --reset-rate, --stall-rate and --corrupt-rate must be between 0 and 1.")
        }
        if let tokenTTL, !(tokenTTL > 0 && tokenTTL.isFinite) {
            throw ValidationError("--token-ttl must be a positive number of seconds.")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard (100...599).contains(failStatus) else { throw ValidationError("--fail-status must be an HTTP status (100-599).") }
        guard modelingDelay >= 0 else { throw ValidationError("--modeling-delay must not be negative.") }
        guard ticketTTL >= 0, ticketTTL.isFinite else { throw ValidationError("--ticket-ttl must be a non-negative number of seconds.") }
        guard idempotencyTTL > 0, idempotencyTTL.isFinite else { throw ValidationError("--idempotency-ttl must be a positive number of seconds.") }
        if let ticketSecret, ticketSecret.isEmpty { throw ValidationError("--ticket-secret must not be empty.") }
    }

    func run() async throws {
        var configuration = ReferenceServerConfiguration(root: root)
        configuration.host = host
        configuration.port = port
        configuration.token = token ?? ProcessInfo.processInfo.environment["UPLOADER_SERVER_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.tokenTTL = tokenTTL
        configuration.modelingDelay = modelingDelay
        configuration.failRate = failRate
        configuration.failStatus = failStatus
        configuration.retryAfter = retryAfter
        configuration.resetRate = resetRate
        configuration.stallRate = stallRate
        configuration.corruptRate = corruptRate
        configuration.seed = seed
        configuration.ticketTTL = ticketTTL
        configuration.ticketSecret = ticketSecret
        configuration.presignCountMismatch = presignCountMismatch
        configuration.presignExpiredTickets = presignExpired
        configuration.idempotencyTTL = idempotencyTTL

        let server = ReferenceServer(configuration: configuration)
        let displayHost = ["0.0.0.0", "::", ""].contains(host) ? "127.0.0.1" : host
        let portFile = self.portFile
        try await server.run { boundPort in
            if let portFile {
                try Self.writeAtomically(String(boundPort) + "\n", to: portFile)
            }
            // An unbuffered write: scripts read this line while the process keeps running.
            let line = "uploader-server listening on http://\(displayHost):\(boundPort)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }

    /// Writes via a temp file in the same folder and `rename(2)`, so a script polling for the port
    /// file never reads it half-written.
    static func writeAtomically(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw ValidationError("cannot write port file \(path)")
        }
    }
}
