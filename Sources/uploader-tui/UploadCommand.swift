import ArgumentParser
import Foundation
import UploadData
import UploadDomain
import UploaderCLI

/// `uploader-tui [upload] PATH... --to URL`: the options of an upload run.
struct UploadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload files and folders over HTTP or to S3 with live progress (the default command).",
        discussion: """
            Modes: --to URL posts multipart/form-data; --to s3://bucket/prefix/ uploads to S3; --put URL/ PUTs \
            each file's bytes to URL + its path; --presign URL asks an API for presigned URLs and PUTs each file \
            to its own.

            A journal remembers every file's outcome, so a rerun skips what is done and resumes the rest.

            Every flag has an opposite that switches a profile's `true` off for one run: --no-recursive for \
            --recursive, --tui for --no-tui, and so on; the last one given wins.

            Exit codes: 0 all done or skipped (or the screen detached), 1 some failed or cancelled, 2 usage error, \
            unusable journal or no libcurl, 3 nothing to upload, 4 the run process vanished under its screen, 130 \
            interrupted.
            """)

    @Argument(help: "Files or folders to upload.", completion: .file())
    var paths: [String] = []

    @OptionGroup(title: "Profiles (config.toml)")
    var profiles: ProfileOptions

    @Option(help: ArgumentHelp("POST each file as multipart/form-data to this URL.", valueName: "url"))
    var to: String?

    @Option(help: ArgumentHelp("PUT each file's raw bytes to this base URL plus its relative path.", valueName: "url"))
    var put: String?

    @Option(
        help: ArgumentHelp("Ask this API for presigned upload URLs, then PUT each file to its URL.", valueName: "url"))
    var presign: String?

    @Option(
        help: ArgumentHelp(
            "With --presign: the mediaType sent for every file (picks the storage prefix).", valueName: "type"))
    var mediaType: String?

    // `.unconditional` on numbers: `--retries -2` is a value to refuse with a message, not a flag that is missing.
    @Option(parsing: .unconditional, help: ArgumentHelp("With --presign: files per presign request.", valueName: "n"))
    var presignBatch = 100

    @Option(
        help: ArgumentHelp(
            "Write every file's outcome (media ID, key, status) in input order as JSON: {\"files\": [...]}.",
            valueName: "file"),
        completion: .file())
    var results: String?

    @OptionGroup(title: "S3")
    var s3: S3Options

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("S3: files this large or larger go as multipart uploads (K/M/G).", valueName: "size"))
    var multipartThreshold = "64M"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("S3: size of each multipart part (K/M/G; at least 5M).", valueName: "size"))
    var partSize = "16M"

    @Option(
        help: ArgumentHelp(
            "S3: the checksum each upload carries, which S3 checks and keeps: crc32 or sha256.", valueName: "name"),
        completion: .list(["crc32", "sha256"]))
    var checksumAlgorithm = "crc32"

    @Option(help: "Form field name for files.")
    var field = "file"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Files per multipart request: a number or 'all'.", valueName: "n|all"))
    var batch = "1"

    @Option(name: .customShort("F"), help: ArgumentHelp("Extra form field (repeatable).", valueName: "name=value"))
    var form: [String] = []

    @Option(name: .customShort("H"), help: ArgumentHelp("Extra request header (repeatable).", valueName: "Name: value"))
    var header: [String] = []

    @Option(help: "Bearer token (default: $UPLOADER_TOKEN). Never printed.")
    var token: String?

    @Option(
        help: ArgumentHelp(
            "Run this shell command for a new bearer token when the server answers 401 (its output is the token).",
            valueName: "cmd"))
    var tokenCommand: String?

    @Option(
        help: ArgumentHelp(
            "POST here for a new bearer token when the server answers 401 (JSON access_token or token).",
            valueName: "url"))
    var refreshURL: String?

    @Option(
        help: ArgumentHelp(
            "Journal of outcomes (default $XDG_STATE_HOME/uploader-tui/journal.sqlite).", valueName: "path"),
        completion: .file())
    var journal: String?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Skip what the journal says is done and record every outcome; --no-resume uploads everything and "
                + "records nothing."))
    var resume = true

    @Flag(
        inversion: .prefixedNo,
        help: "Upload only the files earlier runs to this destination did not finish: failed, cancelled or cut off.")
    var retryFailed = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Requests in flight at once: auto (from 4, widened while goodput grows, narrowed when it stops or "
                + "requests fail) or 1-64.",
            valueName: "n|auto"),
        completion: .list(["auto"]))
    var concurrency = "auto"

    @Option(parsing: .unconditional, help: "Retries per file for connection errors, timeouts, 408, 429 and 5xx.")
    var retries = 5

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Abort and retry a transfer that sends nothing, or whose answer stops coming, for this many seconds.",
            valueName: "s"))
    var stallTimeout = 30.0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Abort and retry a request whose answer has not begun this many seconds after its last byte, and wait no "
                + "longer for a server still processing an earlier request under the same key (0: wait as long as the "
                + "server takes).",
            valueName: "s"))
    var responseTimeout = 300.0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Cap each transfer's upload speed, bytes/s with K/M/G suffixes (1024-based).", valueName: "rate"))
    var limitRate: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Cap the upload speed of all transfers together, bytes/s with K/M/G suffixes (1024-based); [ and ] "
                + "change it on the screen.", valueName: "rate"))
    var bwlimit: String?

    @Flag(name: [.short, .long], inversion: .prefixedNo, help: "Descend into subfolders.")
    var recursive = false

    @Flag(inversion: .prefixedNo, help: "Include hidden files and folders (names starting with '.').")
    var hidden = false

    @Flag(
        name: [.customShort("L"), .long], inversion: .prefixedNo,
        help: "Follow symbolic links inside folders (skipped by default, each named with its target).")
    var followSymlinks = false

    @Flag(
        name: .customLong("tui"), inversion: .prefixedNo,
        help: ArgumentHelp(
            "The screen where stdout is a terminal; --no-tui: plain output for scripts (automatic when stdout is "
                + "not a terminal or CI is set)."))
    var tui = true

    @Flag(inversion: .prefixedNo, help: "Write NDJSON events to stdout.")
    var json = false

    @Flag(
        name: [.short, .long], inversion: .prefixedNo, help: "Print only failures and the summary (implies --no-tui).")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "Append a log of the run (each file's phases, retries, failures; never a token) to this file.",
            valueName: "path"),
        completion: .file())
    var logFile: String?

    @Option(
        help: ArgumentHelp(
            "Least severe entries written to --log-file: debug, info, warning or error.",
            valueName: "level"),
        completion: .list(["debug", "info", "warning", "error"]))
    var logLevel = "info"

    @Flag(inversion: .prefixedNo, help: "Leave the screen when the batch ends instead of waiting for 'q'.")
    var exitWhenDone = false

    @Flag(
        inversion: .prefixedNo,
        help: """
            Start the run in the background without a screen; `uploader-tui attach ID` shows it, `ps` lists it, \
            `stop ID` stops it.
            """)
    var detach = false

    @Flag(inversion: .prefixedNo, help: "Skip TLS certificate verification (unsafe).")
    var insecure = false

    @OptionGroup(title: "TLS and proxies")
    var tls: TLSOptions

    @Flag(
        inversion: .prefixedNo,
        help: """
            After each file is sent, read back what the server stored and compare digests: S3 by the object's \
            CRC-32 or SHA-256 checksum (else its ETag), presigned uploads by HEAD ETag, --put by HEAD ETag or a \
            hashed GET, --to by the sha256 in the server's answer. A mismatch fails the file (verifyMismatch).
            """)
    var verify = false

    @Flag(inversion: .prefixedNo, help: "Cancel the rest of the batch at the first failure.")
    var failFast = false

    @Flag(
        inversion: .prefixedNo,
        help: """
            Show what would happen and send nothing: each file's type, pixels, size before and after preparing, \
            destination, what the journal says, GPS, and every broken rule.
            """)
    var dryRun = false

    @OptionGroup(title: "Selection (files found in folders)")
    var selection: SelectionOptions

    @OptionGroup(title: "Dataset rules (checked before anything is sent)")
    var rules: RuleOptions

    @OptionGroup(title: "Images (prepared with libvips before sending; the originals are not touched)")
    var images: ImageFlags

    @Flag(
        inversion: .prefixedNo,
        help: """
            Send an Idempotency-Key header, so a server can answer a repeated request with its first result \
            instead of storing the files again; --no-idempotency-key sends none, for servers that refuse unknown \
            headers.
            """)
    var idempotencyKey = true

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "After Ctrl-C, q or C: seconds the uploads in flight get to finish before they are aborted.",
            valueName: "s"))
    var grace = 10.0
}
