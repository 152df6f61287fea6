import Foundation
import UploadData
import UploadDomain
import UploaderCLI

/// A command line that cannot run: exit 2 before anything is sent.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    /// Most messages quote what the user typed (a path, a name, a value): control characters are escaped, whichever
    /// site forgot to, as everywhere else text reaches the terminal. Line breaks of the message itself stay.
    init(description: String) {
        self.description = Sanitizer.lines(description)
    }
}

/// Everything a run needs, validated.
struct UploadPlan {
    /// How requests are made; presign planners need the engine, so they are built with it.
    enum Destination {
        case planner(any RequestPlanner)
        case presign(endpoint: String, token: String?, headers: [HTTPHeader], mediaType: String?, batch: Int)
    }

    var items: [UploadItem]
    var notes: [String]
    /// The folders' entries that are not items (hidden, filtered out, …): NDJSON accounts for each.
    var leftOut: [LeftOutEntry]
    var destinationKind: Destination
    var resultsTarget: ResultsFile.Target?
    /// `--log-file`, opened.
    var log: RunLog?
    var source: String
    var destination: String
    var configuration: UploadSession.Configuration
    var engineOptions: CurlEngine.Options
    var headless: Bool
    /// `--quiet`: only failures and the summary.
    var quiet: Bool
    var json: Bool
    var exitWhenDone: Bool
    /// The journal being prepared while the files were scanned; nil with `--no-resume`.
    var journal: JournalOpening?
    var retryFailed: Bool
    var tokenSource: TokenSource?
    /// The first token, when the command line or environment gave one.
    var initialToken: String?
    var headers: [HTTPHeader]
    /// What preprocessing does to images (nothing by default).
    var imageOptions: ImageOptions
    /// `--dry-run`: the broken rules are reported with the files instead of stopping the run.
    var dryRun: Bool
    var violations: [String]
    /// `--detach`: the run goes to a process of its own without a screen.
    var detach = false
    /// Set in the run process: the ID its socket is named after.
    var service: String?
}

/// The option values a run checks before it looks at any file.
struct CheckedOptions {
    var headers: [HTTPHeader]
    var fields: [FormField]
    var batchRules: BatchRules
    var fileSelection: FileSelection
    var imageOptions: ImageOptions
    /// `--concurrency`, or nil for auto.
    var width: Int?
    var batchSize: Int
    var bandwidthLimit: Int64?
    var bearer: String?
    var tokenSource: TokenSource?
    /// The token requests carry: "" when a token source fetches the first one.
    var carriedToken: String?
    var engineOptions: CurlEngine.Options
}

/// Where new bearer tokens come from.
enum TokenSource {
    case command(String)
    case refreshURL(String)

    /// `--token-command` or `--refresh-url`, at most one of them; nil for neither.
    static func from(command: String?, refreshURL: String?) throws -> TokenSource? {
        switch (command, refreshURL) {
        case (let command?, nil): .command(command)
        case (nil, let url?): .refreshURL(try UploadCommand.validate(url: url, option: "--refresh-url"))
        case (nil, nil): nil
        default: throw UsageError(description: "use only one of --token-command and --refresh-url")
        }
    }

    /// What fetches a new token: the command, or a POST to the URL with `headers` through `transport`.
    func provider(headers: [HTTPHeader], transport: CurlEngine) -> any TokenProvider {
        switch self {
        case .command(let command): CommandTokenProvider(command: command)
        case .refreshURL(let url): RefreshURLTokenProvider(url: url, headers: headers, transport: transport)
        }
    }
}

extension UploadCommand {
    /// Every option value checked on its own, before any file, journal or destination is looked at: what a run
    /// refuses, `config show` refuses too.
    func checkedOptions(environment: [String: String]) throws -> CheckedOptions {
        let headers = try header.map { line -> HTTPHeader in
            guard let parsed = HTTPHeader(line: line) else {
                // Named, with a credential's value masked as `config show` masks it: the error must not print it.
                let shown = Sanitizer.displayName(Redactor.maskedHeader(line))
                throw UsageError(
                    description: "-H '\(shown)': not a header; expected 'Name: value' on one line, the name of "
                        + "letters, digits and !#$%&'*+-.^_`|~ only")
            }
            return parsed
        }
        let fields = try form.map { pair -> FormField in
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                // Led by the option, so a profile's entry is said with its file and line (`FileOrigins.attributed`).
                throw UsageError(
                    description: "-F '\(Sanitizer.displayName(pair))': not a form field; expected name=value")
            }
            return FormField(name: String(pair[..<eq]), value: String(pair[pair.index(after: eq)...]))
        }
        let batchRules = try rules.parsed()
        let fileSelection = try selection.parsed()
        let imageOptions = try images.parsed()
        let width = try concurrencyWidth()
        guard retries >= 0 else {
            throw UsageError(description: "--retries takes a number of retries, 0 or more, not \(retries)")
        }
        let batchSize: Int
        if batch == "all" {
            batchSize = Int.max
        } else if let n = Int(batch), n >= 1 {
            batchSize = n
        } else {
            throw UsageError(description: "--batch takes a number of files or 'all', not '\(batch)'")
        }
        guard !field.isEmpty, !field.contains(where: { $0.isNewline || $0 == "\"" }) else {
            throw UsageError(description: "--field must be a plain name")
        }
        // 0 (curl's word for no cap) and rclone's `off` switch a cap off, so a profile's cap can be lifted by a flag.
        var speed = 0
        if let limitRate, limitRate.lowercased() != "off" {
            guard let parsed = ByteSize.parse(limitRate) else {
                let shown = Sanitizer.displayName(limitRate)
                throw UsageError(
                    description: "--limit-rate takes a size such as 500K or 2M (0 or off: none), not '\(shown)'")
            }
            speed = Int(parsed)
        }
        var bandwidthLimit: Int64?
        if let bwlimit, bwlimit.lowercased() != "off" {
            let shown = Sanitizer.displayName(bwlimit)
            guard let parsed = ByteSize.parse(bwlimit) else {
                let expected = "a rate in bytes/s such as 500K or 2M (0 or off: none)"
                throw UsageError(description: "--bwlimit takes \(expected), not '\(shown)'")
            }
            bandwidthLimit = parsed > 0 ? parsed : nil
        }
        let bearer = token ?? environment["UPLOADER_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let bearer, bearer.contains(where: { $0.isNewline }) {
            throw UsageError(description: "the token holds a line break")
        }
        let tokenSource = try TokenSource.from(command: tokenCommand, refreshURL: refreshURL)
        // With a token source and no token yet, the first request fetches one; "" marks requests that carry it.
        let carried = bearer ?? (tokenSource == nil ? nil : "")
        guard stallTimeout >= 0, stallTimeout.isFinite else {
            throw UsageError(
                description:
                    "--stall-timeout takes seconds, 0 or more (0 switches it off), not \(Self.number(stallTimeout))")
        }
        guard responseTimeout >= 0, responseTimeout.isFinite else {
            throw UsageError(
                description:
                    "--response-timeout takes seconds, 0 or more (0 waits as long as the server takes), not "
                    + Self.number(responseTimeout))
        }
        guard grace >= 0, grace.isFinite else {
            throw UsageError(
                description: "--grace takes seconds, 0 or more (0 aborts at once), not \(Self.number(grace))")
        }
        if detach, json || quiet {
            throw UsageError(
                description: "--detach runs without output; leave out --json and --quiet (uploader-tui ps --json "
                    + "reports on runs)")
        }
        if retryFailed, !resume {
            throw UsageError(description: "--retry-failed needs the journal; drop --no-resume")
        }
        if [to, put, presign].compactMap({ $0 }).count > 1 {
            throw UsageError(description: "use only one of --to, --put and --presign")
        }
        if presign != nil, presignBatch < 1 {
            throw UsageError(description: "--presign-batch takes a number of files, 1 or more, not \(presignBatch)")
        }
        if let to, to.lowercased().hasPrefix("s3://") {
            _ = try s3Sizes()
            if let reserved = S3Planner.reservedHeader(in: headers) {
                throw UsageError(description: "-H \(reserved): set by the S3 signature, not by -H")
            }
        } else if let to {
            _ = try Self.validate(url: to, option: "--to")
        }
        if let framing = CurlEngine.framingHeader(in: headers) {
            throw UsageError(description: "-H \(framing): set by libcurl from the request, not by -H")
        }
        if let put { _ = try Self.validate(url: put, option: "--put") }
        if let presign { _ = try Self.validate(url: presign, option: "--presign") }
        do {
            _ = try RunLog.threshold(logLevel)
        } catch {
            throw UsageError(description: error.description)
        }
        var engineOptions = CurlEngine.Options(
            insecure: insecure, maxSendSpeed: speed, stallTimeout: stallTimeout, responseTimeout: responseTimeout)
        try tls.apply(to: &engineOptions, environment: environment)
        return CheckedOptions(
            headers: headers, fields: fields, batchRules: batchRules, fileSelection: fileSelection,
            imageOptions: imageOptions, width: width, batchSize: batchSize, bandwidthLimit: bandwidthLimit,
            bearer: bearer, tokenSource: tokenSource, carriedToken: carried, engineOptions: engineOptions)
    }

    /// - Parameters:
    ///   - journal: The opening started with `main`; told the journal's path, or to skip it.
    ///   - environment: The process's environment, read once by `main`.
    ///   - typed: The settings typed on the command line (`typedSettings`): those the destination does not use are
    ///     refused; the same from a profile are left unused.
    ///   - origins: Where the profiles file's settings came from, for a 401's hint about the token.
    func makePlan(
        journal opening: JournalOpening, environment: [String: String], typed: Set<String>,
        origins: ProfileArguments.FileOrigins
    ) throws -> UploadPlan {
        guard !paths.isEmpty else { throw UsageError(description: "no files or folders given (try --help)") }
        let checked = try checkedOptions(environment: environment)
        let (headers, fields, width) = (checked.headers, checked.fields, checked.width)
        let isS3 = to?.lowercased().hasPrefix("s3://") == true
        // S3 requests are signed: a profile's token, command or refresh URL is for its HTTP destinations.
        let (bearer, tokenSource, carried) =
            isS3 ? (nil, nil, nil) : (checked.bearer, checked.tokenSource, checked.carriedToken)
        let (imageOptions, engineOptions) = (checked.imageOptions, checked.engineOptions)
        let journalPath = resume ? try JournalPath.resolve(journal, environment: environment) : nil

        // The URLs, and that there is at most one, were checked with the options.
        let destination: UploadPlan.Destination
        guard let target = to ?? put ?? presign else {
            throw UsageError(
                description: "say where to upload: --to URL (multipart POST), --put URL/ (PUT) or --presign URL")
        }
        let mode: Mode = if isS3 { .s3 } else if to != nil { .multipart } else if put != nil { .put } else { .presign }
        try Self.refuseOptions(notUsedBy: mode, typed: typed)
        // Typed alone it would do nothing, silently; from a profile it waits for the options that use it.
        if typed.contains("quality"), imageOptions.changesNothing {
            throw UsageError(
                description: "--quality applies to images re-encoded by --max-dimension, --convert or --strip-metadata")
        }
        if isS3 {
            destination = .planner(try makeS3Planner(target, headers: headers))
        } else if to != nil {
            destination = .planner(
                MultipartPlanner(
                    url: target, fileField: field, fields: fields, headers: headers, token: carried,
                    batchSize: checked.batchSize, idempotencyKeys: idempotencyKey))
        } else if put != nil {
            destination = .planner(
                PutPlanner(baseURL: target, headers: headers, token: carried, idempotencyKeys: idempotencyKey))
        } else {
            destination = .presign(
                endpoint: target, token: carried, headers: headers, mediaType: mediaType, batch: presignBatch)
        }

        // Refused before the journal or the network sees anything: such a destination cannot say what it stored.
        if verify, case .planner(let planner) = destination, let refusal = planner.verifyRefusal {
            throw UsageError(description: "--verify: \(refusal)")
        }
        let resultsTarget = try results.map { try ResultsFile.target(for: $0, environment: environment) }
        let journalOpening: JournalOpening?
        if let journalPath {
            opening.open(path: journalPath, destination: Self.shown(target, destination))
            journalOpening = opening
        } else {
            opening.skip()
            journalOpening = nil
        }
        let scan: FileScanner.Result
        do {
            // The entries left out are listed for NDJSON alone; the notes count them.
            scan = try FileScanner(
                recursive: recursive, includeHidden: hidden, followSymlinks: followSymlinks,
                selection: checked.fileSelection, listsLeftOut: json
            ).scan(paths)
        } catch {
            journalOpening?.abandon()
            throw UsageError(description: error.description)
        }
        guard !scan.items.isEmpty else {
            journalOpening?.abandon()
            let notes = scan.notes.map { "\n  " + $0 }.joined()
            throw NothingToUpload(
                description: "nothing to upload in \(paths.map(Sanitizer.displayName).joined(separator: ", "))\(notes)",
                leftOut: scan.leftOut, results: resultsTarget)
        }
        do {
            try TLSOptions.checkFiles(of: engineOptions)
        } catch {
            journalOpening?.abandon()
            throw error
        }
        // The rules see the batch that would be sent: links and repeated content left out.
        let (items, duplicateNotes) = rules.applyingDuplicates(to: scan.items)
        // Read from their headers: an animated GIF keeps its format and name under --convert, so it is checked as a
        // GIF and cannot clash as a .jpg.
        let paged = VipsImagePreparer.pagedImages(items, options: imageOptions)
        let (violations, warnings) = rules.check(checked.batchRules, items, imageOptions: imageOptions, paged: paged)
        guard violations.isEmpty || dryRun else {
            journalOpening?.abandon()
            throw UsageError(description: violations.map(\.description).joined(separator: "\nuploader-tui: "))
        }
        // Presigned tickets name each file's own key; everywhere else the second would overwrite the first.
        var broken = violations.map(\.description)
        if case .planner = destination {
            let clashes = Self.sameRemoteName(items, images: imageOptions, paged: paged)
            // A dry run shows them with the plan, as broken rules, so a script reads why it exits 2.
            if !clashes.isEmpty, !dryRun {
                journalOpening?.abandon()
                throw UsageError(description: clashes.joined(separator: "\nuploader-tui: "))
            }
            broken += clashes
        }
        let headless = isHeadless(environment: environment)
        var log: RunLog?
        if let logFile, !dryRun {
            do {
                log = try RunLog.open(
                    path: ConfigLocation.expanding(logFile, environment: environment), level: logLevel)
            } catch {
                journalOpening?.abandon()
                throw UsageError(description: error.description)
            }
        }
        return UploadPlan(
            items: items,
            notes: (engineOptions.insecure ? [TLSOptions.insecureNote] : []) + scan.notes + warnings + duplicateNotes
                + [
                    VipsImagePreparer.unpreparedNote(items, options: imageOptions),
                    VipsImagePreparer.pagedNote(items, paged: paged),
                ].compactMap { $0 },
            leftOut: scan.leftOut,
            destinationKind: destination,
            resultsTarget: resultsTarget, log: log,
            source: paths.joined(separator: " "), destination: Self.shown(target, destination),
            configuration: UploadSession.Configuration(
                concurrency: width ?? ConcurrencyTuner.initialWidth, retryPolicy: RetryPolicy(maxRetries: retries),
                failFast: failFast, tokenRefreshes: tokenSource == nil ? 0 : 2,
                grace: .milliseconds(Int64(min(grace, 31_536_000) * 1000)), imageOptions: imageOptions,
                bandwidthLimit: checked.bandwidthLimit,
                verify: verify, autoConcurrency: width == nil, maxPreparedSize: checked.batchRules.maxSize,
                tokenOrigin: isS3
                    ? nil
                    : origins.tokenOrigin(
                        token: token, tokenCommand: tokenCommand, refreshURL: refreshURL, environment: environment),
                // A server still processing the first request under a key is waited for as long as an answer is.
                inProgressPatience: responseTimeout > 0
                    ? .milliseconds(Int64(min(responseTimeout, 31_536_000) * 1000)) : nil),
            engineOptions: engineOptions,
            headless: headless, quiet: quiet, json: json, exitWhenDone: exitWhenDone, journal: journalOpening,
            retryFailed: retryFailed, tokenSource: tokenSource, initialToken: bearer, headers: headers,
            imageOptions: imageOptions, dryRun: dryRun, violations: broken, detach: detach)
    }

    /// Plain output instead of a screen: asked for, or stdout is no terminal, or CI says so.
    func isHeadless(environment: [String: String]) -> Bool {
        !tui || json || quiet || isatty(STDOUT_FILENO) == 0 || environment["CI"].map { !$0.isEmpty } ?? false
    }

    /// The destination as the screen, the log and `history` show it: an S3 URL with the endpoint it goes to when that
    /// is not AWS, so runs to staging and production read apart.
    static func shown(_ target: String, _ destination: UploadPlan.Destination) -> String {
        if case .planner(let planner as S3Planner) = destination, let custom = planner.endpoint.customURL {
            return Redactor.url(target) + " at " + Redactor.url(custom)
        }
        return Redactor.url(target)
    }

    /// S3 with the upload's sizes, each checked before anything is sent.
    func makeS3Planner(_ url: String, headers: [HTTPHeader]) throws -> S3Planner {
        let (threshold, part, algorithm) = try s3Sizes()
        // With auto, the session's slots bound the parts in flight as they bound everything else.
        let parts = try concurrencyWidth() ?? ConcurrencyTuner.range.upperBound
        var planner = try s3.planner(for: url, multipartThreshold: threshold, partSize: part, partConcurrency: parts)
        planner.checksumAlgorithm = algorithm
        planner.partRetries = RetryPolicy(maxRetries: retries)
        planner.userHeaders = headers
        return planner
    }

    /// `--multipart-threshold`, `--part-size` and `--checksum-algorithm`, checked.
    func s3Sizes() throws -> (threshold: Int64, part: Int64, algorithm: S3ChecksumAlgorithm) {
        guard let threshold = ByteSize.parse(multipartThreshold), threshold > 0 else {
            throw UsageError(description: "--multipart-threshold takes a size such as 64M, not '\(multipartThreshold)'")
        }
        guard let part = ByteSize.parse(partSize), part >= 5 << 20, part <= 5 << 30 else {
            throw UsageError(description: "--part-size must be between 5M and 5G, not '\(partSize)'")
        }
        guard let algorithm = S3ChecksumAlgorithm(rawValue: checksumAlgorithm.uppercased()) else {
            throw UsageError(description: "--checksum-algorithm takes crc32 or sha256, not '\(checksumAlgorithm)'")
        }
        return (threshold, part, algorithm)
    }

    /// `--concurrency`: the fixed width, or nil for `auto`.
    func concurrencyWidth() throws -> Int? {
        if concurrency.lowercased() == "auto" { return nil }
        guard let width = Int(concurrency), ConcurrencyTuner.range.contains(width) else {
            throw UsageError(
                description: "--concurrency takes auto or a number of requests from 1 to 64, not '\(concurrency)'")
        }
        return width
    }

    /// `-1` rather than `-1.0`, for messages.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Accepts absolute http(s) URLs with a host, a port in range and nothing left to percent-encode; anything else
    /// is a usage error naming the option.
    static func validate(url: String, option: String) throws -> String {
        if var problem = URLCheck.problem(url) {
            // `s3:/bucket` or `s3:bucket`: an S3 URL mistyped, not a web one.
            if option == "--to" || option == "--from", url.lowercased().hasPrefix("s3:") {
                problem = "expected s3://bucket/prefix/ for S3"
            }
            throw UsageError(
                description: "\(option): invalid URL '\(Sanitizer.displayName(Redactor.url(url)))': \(problem)")
        }
        return url
    }

    /// Every pair of files of the batch that would be stored under one name (the same relative path from two
    /// folders, or an image whose converted name is another file's), a line each.
    /// - Parameter paged: the animated and multi-page images, which keep their name (`pagedImages`).
    static func sameRemoteName(_ items: [UploadItem], images: ImageOptions, paged: Set<String> = []) -> [String] {
        // By bytes, as servers store names: two Unicode spellings of one name are two names.
        var first: [[UInt8]: UploadItem] = [:]
        var clashes: [String] = []
        // Only files that would be sent: one that fails before it is sent (a name that is not UTF-8, shown escaped
        // like the name of another file) stores nothing.
        for item in items where item.skipReason == nil && item.unreadableReason == nil {
            let remote = VipsImagePreparer.remoteName(of: item, options: images, paged: paged)
            guard let earlier = first[Array(remote.utf8)] else {
                first[Array(remote.utf8)] = item
                continue
            }
            let paths = [earlier, item].map { file in
                let converted =
                    VipsImagePreparer.remoteName(of: file, options: images, paged: paged) != file.relativePath
                return Sanitizer.displayName(file.path) + (converted ? " (converted)" : "")
            }
            clashes.append(
                "\(Sanitizer.displayName(remote)): \(paths.joined(separator: " and ")) would be stored under this one "
                    + "name, the second over the first; send them to different destinations")
        }
        return clashes
    }
}

extension UploadPlan {
    /// The files `--retry-failed` takes: those earlier runs to the destination did not finish, asked before a run
    /// begins, so one with nothing to send leaves no entry in `history`.
    /// - Throws: `UsageError` when the journal cannot say; `NothingToUpload` when no file is left.
    func unfinishedItems(in journal: JournalQueries) throws -> [UploadItem] {
        let unfinished: UnfinishedFiles
        do {
            unfinished = try journal.unfinishedFiles(destination: destination)
        } catch {
            throw UsageError(description: error.description)
        }
        let taken = UploadItem.renumbered(items.filter(unfinished.contains))
        guard !taken.isEmpty else {
            throw NothingToUpload(
                description: "no file failed or was left unfinished by an earlier run to \(destination)",
                leftOut: leftOut, results: resultsTarget)
        }
        return taken
    }
}
