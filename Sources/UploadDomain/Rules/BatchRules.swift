/// Dataset rules checked over the scanned files before any byte is sent or the journal records a run (issue 16:
/// seed 001 refuses fewer than 8 images, seed 000 caps a batch at 10; a batch the server will refuse anyway
/// should stop here, not after minutes of uploading).
public struct BatchRules: Sendable {
    /// One file as the rules see it.
    public struct File: Sendable, Equatable {
        public var name: String
        public var size: Int64
        /// The type the file's first bytes say, or nil when they say nothing known.
        public var sniffedType: String?
        /// The type its extension suggests, or nil.
        public var extensionType: String?
        /// An image the options prepare: its size is known once prepared, and checked then (`--max-size`).
        public var preparedLater: Bool

        /// Creates a file.
        public init(
            name: String, size: Int64, sniffedType: String?, extensionType: String?, preparedLater: Bool = false
        ) {
            self.name = name
            self.size = size
            self.sniffedType = sniffedType
            self.extensionType = extensionType
            self.preparedLater = preparedLater
        }
    }

    /// A broken rule: the option as given and what breaks it, one line.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        public var rule: String
        public var problem: String
        public var description: String { "\(rule): \(problem)" }
    }

    /// Allowed MIME types (from `--types`, by the bytes) and the option text that named them.
    public var types: (mimeTypes: Set<String>, option: String)?
    public var minFiles: Int?
    public var maxFiles: Int?
    /// Largest file allowed, and its option text (`--max-size 10M`).
    public var maxSize: (bytes: Int64, option: String)?
    /// Largest batch allowed, and its option text.
    public var maxTotal: (bytes: Int64, option: String)?

    /// Creates rules; nothing set allows everything.
    public init() {}

    /// The type a file's bytes say; for bytes of no known type, the type its name suggests, as the dry run shows it.
    private static func typeWords(_ file: File) -> String {
        if let sniffed = file.sniffedType { return sniffed }
        return "bytes of no known type" + (file.extensionType.map { ", named as \($0)" } ?? "")
    }

    /// How many offending files a line names before it says how many more.
    public static let namedFiles = 3

    /// Every rule `files` break, in a fixed order (types, counts, sizes).
    /// - Parameter formatBytes: how sizes read in the messages.
    public func violations(of files: [File], formatBytes: (Int64) -> String) -> [Violation] {
        var found: [Violation] = []
        if let types {
            let wrong = files.filter { file in file.sniffedType.map { !types.mimeTypes.contains($0) } ?? true }
            if !wrong.isEmpty {
                let names = wrong.map { "\(Sanitizer.displayName($0.name)) (\(Self.typeWords($0)))" }
                found.append(
                    Violation(rule: types.option, problem: "\(are(wrong.count)) not of these types: \(list(names))"))
            }
        }
        if let minFiles, files.count < minFiles {
            found.append(
                Violation(
                    rule: "--min-files \(minFiles)", problem: "\(count(files.count)), at least \(minFiles) needed"))
        }
        if let maxFiles, files.count > maxFiles {
            found.append(
                Violation(
                    rule: "--max-files \(maxFiles)", problem: "\(count(files.count)), at most \(maxFiles) allowed"))
        }
        if let maxSize {
            let large = files.filter { !$0.preparedLater && $0.size > maxSize.bytes }
            if !large.isEmpty {
                let names = large.map { "\(Sanitizer.displayName($0.name)) (\(formatBytes($0.size)))" }
                found.append(Violation(rule: maxSize.option, problem: "\(are(large.count)) larger: \(list(names))"))
            }
        }
        if let maxTotal {
            // Prepared images count at their original size, the most they can send.
            let total = files.reduce(Int64(0)) { $0 + $1.size }
            if total > maxTotal.bytes {
                found.append(
                    Violation(
                        rule: maxTotal.option,
                        problem:
                            "\(count(files.count)) make \(formatBytes(total)), at most \(formatBytes(maxTotal.bytes))"))
            }
        }
        return found
    }

    /// Files whose extension names another type than their bytes: worth a warning, not a refusal.
    public static func mismatchedExtensions(_ files: [File]) -> [String] {
        files.compactMap { file in
            guard let sniffed = file.sniffedType, let named = file.extensionType, sniffed != named else { return nil }
            return "\(Sanitizer.displayName(file.name)): the name says \(named), the bytes say \(sniffed)"
        }
    }

    private func count(_ n: Int) -> String { n == 1 ? "1 file" : "\(n) files" }

    private func are(_ n: Int) -> String { n == 1 ? "1 file is" : "\(n) files are" }

    private func list(_ names: [String]) -> String {
        let shown = names.prefix(Self.namedFiles).joined(separator: ", ")
        return names.count > Self.namedFiles ? shown + " and \(names.count - Self.namedFiles) more" : shown
    }
}
