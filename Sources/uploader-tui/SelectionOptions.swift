import ArgumentParser
import Foundation
import UploadDomain
import UploaderCLI

/// Which files found in the folders are sent, and in which order (issue 17).
struct SelectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Send only the files in folders matching this pattern (repeatable; rclone's globs: *, **, ?, [a-z], {a,b}; "
                + "a leading / anchors at the folder's top).",
            valueName: "glob"))
    var include: [String] = []

    @Option(
        help: ArgumentHelp(
            "Leave out the files in folders matching this pattern (repeatable; wins over --include; 'raw/' leaves out "
                + "a folder).",
            valueName: "glob"))
    var exclude: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Send only files modified within this age (90s, 15m, 2h, 3d, 1w, 6M, 1y) or since a date (2024-06-01).",
            valueName: "age"))
    var maxAge: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Send only files older than this age or modified before this date.", valueName: "age"))
    var minAge: String?

    @Option(
        help: ArgumentHelp(
            "Send in this order: name, size or mtime, with ,desc for the largest or newest first (default: the "
                + "order of the arguments, each folder by name).",
            valueName: "key[,desc]"),
        completion: .list(["name", "size", "mtime", "name,desc", "size,desc", "mtime,desc"]))
    var orderBy: String?

    /// The selection as given; a pattern, age or order that is not one is a usage error.
    func parsed(now: Double = Date().timeIntervalSince1970) throws -> FileSelection {
        var selection = FileSelection()
        do {
            selection.includes = try include.map(GlobPattern.init)
            selection.excludes = try exclude.map(GlobPattern.init)
        } catch {
            let option = include.contains(error.pattern) ? "--include" : "--exclude"
            throw UsageError(description: "\(option) \(error.description)")
        }
        selection.maxAge = try maxAge.map { try Self.age($0, option: "--max-age", now: now) }
        selection.minAge = try minAge.map { try Self.age($0, option: "--min-age", now: now) }
        if let oldest = selection.maxAge, let newest = selection.minAge, newest > oldest, let maxAge, let minAge {
            throw UsageError(
                description: "--min-age \(Sanitizer.displayName(minAge)) is older than --max-age "
                    + "\(Sanitizer.displayName(maxAge)): no file can be both")
        }
        if let orderBy { selection.order = try Self.order(orderBy) }
        return selection
    }

    private static func age(_ text: String, option: String, now: Double) throws -> Double {
        guard let seconds = Age.seconds(text, now: now) else {
            throw UsageError(
                description: "\(option) takes an age such as 90s, 2h, 3d or a date such as 2024-06-01, not "
                    + "'\(Sanitizer.displayName(text))'")
        }
        return seconds
    }

    private static func order(_ text: String) throws -> FileSelection.Order {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let keys = FileSelection.Order.Key.allCases.map(\.rawValue).joined(separator: ", ")
        guard (1...2).contains(parts.count), let key = FileSelection.Order.Key(rawValue: parts[0]),
            parts.count == 1 || ["asc", "ascending", "desc", "descending"].contains(parts[1])
        else {
            throw UsageError(
                description: "--order-by takes \(keys), optionally with ,asc or ,desc, not "
                    + "'\(Sanitizer.displayName(text))'")
        }
        return FileSelection.Order(key, descending: parts.count == 2 && parts[1].hasPrefix("desc"))
    }
}
