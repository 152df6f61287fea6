import UploadDomain

/// One file as `--dry-run` describes it: what would be sent, where, and what the journal and rules say.
public struct PlannedFile: Sendable {
    /// What the journal would make of the file.
    public enum JournalVerdict: String, Sendable {
        /// Not uploaded to this destination yet: it would be sent.
        case new
        /// Recorded done with the same size and mtime: it would be skipped.
        case skip
        /// Failed last time: it would be sent again.
        case retry
    }

    public var name: String
    public var type: String
    public var width: Int?
    public var height: Int?
    public var size: Int64
    /// What preparing made of it (measured: prepared into the temp folder, then removed).
    public var preparation: Preparation?
    public var destination: String
    public var journal: JournalVerdict
    /// Whether its metadata holds a GPS location; nil for files that are not images.
    public var gps: Bool?
    /// Why it would not be sent at all (a link not followed, repeated content).
    public var skipReason: String?
    /// Why it would fail (an image that cannot be prepared, an unreadable file).
    public var error: String?

    /// Creates a planned file.
    public init(
        name: String, type: String, width: Int?, height: Int?, size: Int64, preparation: Preparation?,
        destination: String, journal: JournalVerdict, gps: Bool?, skipReason: String?, error: String?
    ) {
        self.name = name
        self.type = type
        self.width = width
        self.height = height
        self.size = size
        self.preparation = preparation
        self.destination = destination
        self.journal = journal
        self.gps = gps
        self.skipReason = skipReason
        self.error = error
    }

    /// True when the run would send it.
    public var wouldSend: Bool { skipReason == nil && error == nil && journal != .skip }
}

/// `--dry-run`'s output: a table (or one NDJSON `planned` event per file) and a summary; nothing is sent.
public enum DryRunReport {
    /// The lines for standard output, in order.
    /// - Parameters:
    ///   - leftOut: the folders' entries that are not files of the batch: in NDJSON, a `skipped` event each, as a
    ///     run reports them (the table leaves them to the notes).
    ///   - violations: the dataset rules the batch breaks, one line each.
    ///   - exitCode: the code the dry run exits with, for the NDJSON summary as a run's has it.
    public static func lines(
        _ files: [PlannedFile], leftOut: [LeftOutEntry] = [], violations: [String], json: Bool, exitCode: Int32
    ) -> [String] {
        let sending = files.filter(\.wouldSend)
        let before = sending.reduce(Int64(0)) { $0 + $1.size }
        let after = sending.reduce(Int64(0)) { $0 + ($1.preparation?.size ?? $1.size) }
        var lines: [String] = []
        if json {
            lines = leftOut.map(HeadlessReporter.ndjson) + files.map(event)
            var line = JSONLine()
            line.add("event", "summary")
            line.add("dry_run", rawJSON: "true")
            line.add("files", files.count)
            line.add("to_send", sending.count)
            line.add("already_uploaded", files.filter { $0.journal == .skip && $0.skipReason == nil }.count)
            line.add("not_sent", files.filter { $0.skipReason != nil }.count)
            line.add("left_out", leftOut.count)
            line.add("failing", files.filter { $0.error != nil }.count)
            line.add("bytes", before)
            line.add("bytes_after_preparing", after)
            line.add("with_gps", files.filter { $0.gps == true }.count)
            line.add("rules_broken", rawJSON: "[" + violations.map(JSONLine.quote).joined(separator: ",") + "]")
            line.add("exit_code", Int(exitCode))
            line.addNow("ts")
            lines.append(line.text)
            return lines
        }
        lines.append(
            pad("FILE", 28) + "  " + pad("TYPE", 10) + "  " + pad("PIXELS", 11) + "  " + pad("SIZE", 9, right: true)
                + "  " + pad("PREPARED", 22) + "  " + pad("JOURNAL", 7) + "  GPS  DESTINATION")
        for file in files {
            let pixels = file.width.map { "\($0)×\(file.height ?? 0)" } ?? "-"
            let prepared =
                file.error.map { "fails: " + $0 } ?? file.skipReason.map { "not sent: " + $0 }
                ?? file.preparation.map { "\($0.width)×\($0.height) \(Format.bytes($0.size))" } ?? "as is"
            let gps = file.gps.map { $0 ? "yes" : "no" } ?? "-"
            lines.append(
                pad(Sanitizer.displayName(file.name), 28) + "  " + pad(shortType(file.type), 10) + "  "
                    + pad(pixels, 11)
                    + "  " + pad(Format.bytes(file.size), 9, right: true) + "  "
                    + pad(Sanitizer.displayName(prepared), 22)
                    + "  " + pad(file.journal.rawValue, 7) + "  " + pad(gps, 3) + "  "
                    + Sanitizer.displayName(file.destination))
        }
        let saved = before > after ? ", \(Format.bytes(after)) after preparing" : ""
        let count = files.count == 1 ? "1 file" : "\(files.count) files"
        // A broken rule stops the run before anything is sent, so none would be.
        let would = violations.isEmpty ? "\(sending.count) would be sent" : "none would be sent (rules broken)"
        let failing = files.filter { $0.error != nil }
        let fail = failing.isEmpty ? "" : ", \(failing.count) would fail"
        lines.append("dry run: \(count), \(would)\(fail) (\(Format.bytes(before))\(saved)); nothing sent")
        // The table's column cuts a reason short: each said whole.
        lines += failing.map {
            "would fail: \(Sanitizer.displayName($0.name)): \(Sanitizer.displayName($0.error ?? ""))"
        }
        lines += violations.map { "rule broken: " + $0 }
        return lines
    }

    private static func event(_ file: PlannedFile) -> String {
        var line = JSONLine()
        line.add("event", "planned")
        line.add("file", file.name)
        line.add("type", file.type)
        line.add("width", file.width)
        line.add("height", file.height)
        line.add("bytes", file.size)
        line.add("prepared_width", file.preparation?.width)
        line.add("prepared_height", file.preparation?.height)
        line.add("prepared_bytes", file.preparation?.size)
        line.add("sent_as", file.preparation?.remoteName ?? (file.wouldSend ? file.name : nil))
        line.add("destination", file.destination)
        line.add("journal", file.journal.rawValue)
        line.add("gps", rawJSON: file.gps.map { $0 ? "true" : "false" } ?? "null")
        line.add("would_send", rawJSON: file.wouldSend ? "true" : "false")
        line.add("reason", file.skipReason)
        line.add("error", file.error)
        line.addNow("ts")
        return line.text
    }

    private static func shortType(_ type: String) -> String {
        type.hasPrefix("image/") || type.hasPrefix("video/") ? String(type.split(separator: "/").last ?? "") : type
    }

    /// By the columns a terminal gives each character: a CJK or emoji name takes two a character.
    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        DisplayWidth.pad(text, to: width, alignRight: right)
    }
}
