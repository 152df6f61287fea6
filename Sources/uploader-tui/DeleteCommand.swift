import ArgumentParser
import Foundation
import UploadData
import UploadDomain
import UploaderCLI

/// `uploader-tui delete --from URL KEY...`: removes stored objects by key (seed 002: replace = delete, then upload).
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete stored objects by key from an object URL (the reference server's /objects/) or s3://bucket/.",
        discussion: "Every flag has a --no- form that switches a profile's `true` off for one run.")

    @Option(
        help: ArgumentHelp("Where the keys live: http(s)://host/objects/ or s3://bucket/prefix/.", valueName: "url"))
    var from: String

    @Argument(help: "Keys to delete, relative to --from (as printed in an upload's location).")
    var keys: [String]

    @Option(help: "Bearer token for http(s) stores (default: $UPLOADER_TOKEN). Never printed.")
    var token: String?

    @Option(
        help: ArgumentHelp(
            "Run this shell command for a new bearer token when the store answers 401 (its output is the token).",
            valueName: "cmd"))
    var tokenCommand: String?

    @Option(
        help: ArgumentHelp(
            "POST here for a new bearer token when the store answers 401 (JSON access_token or token).",
            valueName: "url"))
    var refreshURL: String?

    // A profile brings its token, S3 and TLS settings; its destination does not apply (`--from` names the store).
    @OptionGroup(title: "Profiles (config.toml)")
    var profiles: ProfileOptions

    @OptionGroup(title: "S3")
    var s3: S3Options

    @Flag(inversion: .prefixedNo, help: "Skip TLS certificate verification (unsafe).")
    var insecure = false

    @OptionGroup(title: "TLS and proxies")
    var tls: TLSOptions

    @Option(
        help: ArgumentHelp(
            "The journal that forgets the deleted files were uploaded, so a rerun sends them again (default "
                + "$XDG_STATE_HOME/uploader-tui/journal.sqlite).", valueName: "path"),
        completion: .file())
    var journal: String?

    /// Where a deleted key was stored, as the journal names it.
    private struct Place {
        var destination: String
        var locations: [String]
    }

    /// Deletes each key in turn, one line per key, then has the journal forget them; exit 1 when any was refused or
    /// missing, or the journal could not forget them.
    /// - Parameter origins: Where the profiles file's settings came from, for a 401's hint about the token.
    func execute(origins: ProfileArguments.FileOrigins) async throws -> ExitStatus {
        guard !keys.isEmpty else { throw UsageError(description: "delete: name at least one key") }
        // An empty key names the prefix itself (a folder's marker object on S3).
        guard !keys.contains(where: { $0.allSatisfy(\.isWhitespace) }) else {
            throw UsageError(description: "delete: a key cannot be empty or blank")
        }
        let journalPath = try JournalPath.resolve(journal, environment: ProcessInfo.processInfo.environment)
        let tokenSource = try tokenSource()
        let requests = try keys.map { key in (key, try request(for: key, carriesToken: tokenSource != nil)) }
        var options = CurlEngine.Options(insecure: insecure)
        try tls.apply(to: &options, environment: ProcessInfo.processInfo.environment)
        try TLSOptions.checkFiles(of: options)
        if let problem = CurlEngine.libraryProblem() { throw UsageError(description: problem) }
        if options.insecure { FileHandle.standardError.write(Data("note: \(TLSOptions.insecureNote)\n".utf8)) }
        let engine = CurlEngine(options: options)
        defer { engine.shutdown() }
        var failed = 0
        var deleted: [Place] = []
        let isS3 = from.lowercased().hasPrefix("s3://")
        let tokenOrigin =
            isS3
            ? nil
            : origins.tokenOrigin(
                token: token, tokenCommand: tokenCommand, refreshURL: refreshURL,
                environment: ProcessInfo.processInfo.environment)
        // As an upload's: a 401 has the token command or refresh URL fetch a new token, and the key is asked again.
        let tokens = TokenStore(
            initial: bearer, provider: tokenSource?.provider(headers: [], transport: engine),
            secrets: options.proxyCredentials)
        let transport = AuthorizingTransport(engine, tokens: tokens)
        for (key, request) in requests {
            let name = Sanitizer.displayName(key)
            do {
                var response = try await transport.send(request, probe: TransferProbe())
                if response.status == 401, tokenSource != nil {
                    response = try await transport.send(request, probe: TransferProbe())
                }
                if var error = isS3 ? S3Planner.error(in: response, file: key) : response.error(file: key) {
                    if error.code == .unauthorized { error.tokenOrigin = tokenOrigin }
                    failed += 1
                    FileHandle.standardError.write(Data("failed    \(error)\n".utf8))
                    // Gone already (a delete before, or by another tool): what the journal says of it is wrong too.
                    if response.status == 404 { deleted.append(try place(of: key)) }
                } else {
                    FileHandle.standardError.write(Data("deleted   \(name)\n".utf8))
                    deleted.append(try place(of: key))
                }
            } catch {
                failed += 1
                let reason = (error as? UploadError)?.forFile(key).description ?? "\(name): \(error)"
                FileHandle.standardError.write(Data("failed    \(reason)\n".utf8))
            }
        }
        if !deleted.isEmpty, !forget(deleted, journal: journalPath) { failed += 1 }
        return failed == 0 ? .success : .someFailed
    }

    /// Has the journal forget the deleted files' done records: a rerun would skip them. A journal that cannot is
    /// said, and counts as a failure.
    private func forget(_ places: [Place], journal path: String) -> Bool {
        // None forgotten is also worth a line: a --journal other than the upload's leaves its records as they were.
        let none = "journal   \(Sanitizer.displayName(path)) holds no done record of them\n"
        guard FileManager.default.fileExists(atPath: path) else {
            FileHandle.standardError.write(Data(none.utf8))
            return true
        }
        do {
            // Forgetting spans destinations: no run may share the journal meanwhile.
            let prepared = try SQLiteJournal.prepare(path: path, destination: nil)
            defer { prepared.release() }
            let forgotten = try prepared.forgetDone(
                destinations: places.map(\.destination), locations: places.flatMap(\.locations), store: from)
            let records = forgotten == 1 ? "1 done record" : "\(forgotten) done records"
            let line = forgotten > 0 ? "journal   forgot \(records): a rerun sends those files again\n" : none
            FileHandle.standardError.write(Data(line.utf8))
            return true
        } catch {
            let why = error.code == .locked ? "in use by a running upload" : error.reason
            let warning =
                "uploader-tui: warning: journal \(Sanitizer.displayName(path)): \(why); its done records of the "
                + "deleted files stay, so a rerun skips them: run this delete again once the journal is free (the "
                + "keys then answer 404 not found, and the journal forgets them all the same)\n"
            FileHandle.standardError.write(Data(warning.utf8))
            return false
        }
    }

    /// Where `key` was stored, as an upload's journal names it: the planner's destination of a file sent there
    /// under that name, or the location an answer gave (the key itself, or its URL).
    private func place(of key: String) throws -> Place {
        let item = UploadItem(id: 0, path: "", relativePath: key, size: 0, modified: 0, contentType: "")
        if from.lowercased().hasPrefix("s3://") {
            let planner = try s3.planner(for: from, multipartThreshold: .max, partSize: 5 << 20, partConcurrency: 1)
            return Place(destination: planner.journalDestination(of: item), locations: [])
        }
        let planner = PutPlanner(
            baseURL: try UploadCommand.validate(url: from, option: "--from"), headers: [], token: nil)
        return Place(destination: planner.journalDestination(of: item), locations: [key, planner.url(for: item)])
    }

    /// The token of `--token` or `UPLOADER_TOKEN`; S3 requests are signed instead.
    private var bearer: String? {
        guard !from.lowercased().hasPrefix("s3://") else { return nil }
        return token ?? ProcessInfo.processInfo.environment["UPLOADER_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where a new token comes from after a 401, for http(s) stores.
    private func tokenSource() throws -> TokenSource? {
        guard !from.lowercased().hasPrefix("s3://") else { return nil }
        return try TokenSource.from(command: tokenCommand, refreshURL: refreshURL)
    }

    /// - Parameter carriesToken: A token source fetches the first token when there is none yet.
    private func request(for key: String, carriesToken: Bool) throws -> TransferRequest {
        let empty = TransferRequest.Body.bytes([], contentType: "application/octet-stream")
        if from.lowercased().hasPrefix("s3://") {
            let planner = try s3.planner(for: from, multipartThreshold: .max, partSize: 5 << 20, partConcurrency: 1)
            return planner.deleteRequest(relativeKey: key)
        }
        let base = try UploadCommand.validate(url: from, option: "--from")
        let planner = PutPlanner(baseURL: base, headers: [], token: nil)
        let item = UploadItem(id: 0, path: "", relativePath: key, size: 0, modified: 0, contentType: "")
        return TransferRequest(
            method: .delete, url: planner.url(for: item), headers: [],
            bearerToken: bearer ?? (carriesToken ? "" : nil), body: empty)
    }
}
