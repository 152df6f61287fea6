import ArgumentParser
import UploadData
import UploadDomain
import UploaderCLI

/// The dataset rules a batch must keep before anything is sent (issue 16), and `--skip-duplicates`.
struct RuleOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Allowed types, by the files' bytes: a list such as jpeg,png,heic,webp (or MIME types).",
            valueName: "list"))
    var types: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("At least this many files.", valueName: "n"))
    var minFiles: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many files.", valueName: "n"))
    var maxFiles: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Largest file allowed (K/M/G).", valueName: "size"))
    var maxSize: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Largest batch allowed, all files together (K/M/G).", valueName: "size"))
    var maxTotal: String?

    @Flag(
        inversion: .prefixedNo,
        help: "Send files with the same content once; the others are skipped, each naming the file it repeats.")
    var skipDuplicates = false

    /// The rules as given; a value that is not one is a usage error.
    func parsed() throws -> BatchRules {
        var rules = BatchRules()
        if let types {
            let names = types.split(separator: ",").map { $0.filter { $0 != " " } }.filter { !$0.isEmpty }
            var mimeTypes: Set<String> = []
            for name in names {
                guard let type = MediaType.forTypeName(name) else {
                    throw UsageError(
                        description: "--types: '\(Sanitizer.displayName(name))' is not a type the bytes can tell; use "
                            + MediaType.typeNames)
                }
                mimeTypes.insert(type)
            }
            guard !mimeTypes.isEmpty else { throw UsageError(description: "--types takes a list such as jpeg,png") }
            rules.types = (mimeTypes, "--types \(types)")
        }
        if let minFiles {
            guard minFiles >= 0 else {
                throw UsageError(description: "--min-files takes a number, 0 or more, not \(minFiles)")
            }
            rules.minFiles = minFiles
        }
        if let maxFiles {
            guard maxFiles >= 1 else {
                throw UsageError(description: "--max-files takes a number, 1 or more, not \(maxFiles)")
            }
            rules.maxFiles = maxFiles
        }
        if let minFiles, let maxFiles, minFiles > maxFiles {
            throw UsageError(description: "--min-files \(minFiles) is more than --max-files \(maxFiles)")
        }
        if let maxSize { rules.maxSize = (try Self.size(maxSize, option: "--max-size"), "--max-size \(maxSize)") }
        if let maxTotal { rules.maxTotal = (try Self.size(maxTotal, option: "--max-total"), "--max-total \(maxTotal)") }
        return rules
    }

    private static func size(_ text: String, option: String) throws -> Int64 {
        guard let bytes = ByteSize.parse(text), bytes > 0 else {
            throw UsageError(
                description: "\(option) takes a size such as 10M or 2G, not '\(Sanitizer.displayName(text))'")
        }
        return bytes
    }

    /// `items` with later copies of the same content skipped (with `--skip-duplicates`), and the notes to print.
    func applyingDuplicates(to items: [UploadItem]) -> (items: [UploadItem], notes: [String]) {
        guard skipDuplicates else { return (items, []) }
        let duplicates = DuplicateFinder.duplicates(in: items)
        guard !duplicates.isEmpty else { return (items, []) }
        let kept = items.enumerated().map { index, item in
            duplicates[index].map { original in
                // Two folders' `same.jpg`: the one it repeats named by its whole path.
                let name = items[original].relativePath
                return item.skipped("same content as \(name == item.relativePath ? items[original].path : name)")
            } ?? item
        }
        let what =
            duplicates.count == 1
            ? "1 file repeats the content of an earlier one and is not sent"
            : "\(duplicates.count) files repeat the content of earlier ones and are not sent"
        return (kept, ["--skip-duplicates: " + what])
    }

    /// Every rule `items` break (links and duplicates not counted), and warnings for names that disagree with bytes.
    /// Images the options prepare are seen as they will be sent: of their prepared type, their size checked once
    /// prepared (a resize makes a photo fit `--max-size`).
    /// - Parameter paged: the animated and multi-page images, which keep their format (`pagedImages`).
    func check(
        _ rules: BatchRules, _ items: [UploadItem], imageOptions: ImageOptions, paged: Set<String> = []
    ) -> (violations: [BatchRules.Violation], warnings: [String]) {
        // Only --types compares the extension's type with the bytes'.
        let checksTypes = rules.types != nil
        let files = items.filter { $0.skipReason == nil }.map { item in
            let prepared = VipsImagePreparer.preparedType(of: item, options: imageOptions, paged: paged)
            return BatchRules.File(
                name: item.relativePath, size: item.size, sniffedType: prepared ?? item.sniffedType,
                extensionType: checksTypes && prepared == nil ? MediaType.forExtension(of: item.relativePath) : nil,
                preparedLater: prepared != nil)
        }
        let warnings = checksTypes ? BatchRules.mismatchedExtensions(files) : []
        return (rules.violations(of: files, formatBytes: Format.bytes), warnings)
    }
}
