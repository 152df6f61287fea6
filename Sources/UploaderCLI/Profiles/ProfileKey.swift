/// One setting a profile may hold: its TOML key and the upload option it stands for.
public struct ProfileKey: Sendable, Hashable {
    /// How a TOML value becomes the option's argument.
    public enum Kind: Sendable, Hashable {
        /// A string; an integer is taken as its digits (`batch = 10`, `limit_rate = 1048576`).
        case text
        /// An integer.
        case integer
        /// An integer or a floating-point number.
        case number
        /// A boolean: `true` adds the flag, `false` leaves it out; on the command line its `inverse` switches it off.
        case flag
        /// A repeatable option of named entries (`-H`, `-F`): an array of strings, or a table whose entries are
        /// joined as `name<separator>value`.
        case list(separator: String)
        /// A repeatable option of plain values (`--include`): a string or an array of strings. A table has no
        /// meaning here: its names would be taken into the values.
        case values
        /// A comma-separated option (`--types jpeg,png`): a string, or an array of strings joined with commas.
        case commaList
    }

    /// The TOML key, the long option name in snake_case.
    public let name: String
    /// The long option without dashes, when the option has one.
    public let long: String?
    /// The short option, for options that only have one (`-H`, `-F`) or have both.
    public let short: Character?
    public let kind: Kind
    /// True when `delete` takes the option too.
    public let forDelete: Bool
    /// True when the value is a credential, shown masked.
    public let isSecret: Bool

    init(
        _ name: String, _ kind: Kind, long: String? = "", short: Character? = nil, forDelete: Bool = false,
        isSecret: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.long = long == "" ? String(name.map { $0 == "_" ? "-" : $0 }) : long
        self.short = short
        self.forDelete = forDelete
        self.isSecret = isSecret
    }

    /// How the option is written on a command line: `--limit-rate`, or `-H` for short-only ones.
    public var spelling: String { long.map { "--" + $0 } ?? "-" + String(short!) }

    /// The long option without dashes that switches a flag off for one run, as curl's `--no-` options do:
    /// `no-verify` for `verify`, and `resume` for `no_resume`; nil for other kinds.
    public var inverse: String? {
        guard kind == .flag, let long else { return nil }
        return long.hasPrefix("no-") ? String(long.dropFirst(3)) : "no-" + long
    }

    /// Keys of which a run takes one: the destination, the way to a new token. One section of the file sets at most
    /// one of a group; one a profile sets replaces `[defaults]`' of its group, and one the command line sets replaces
    /// the file's.
    public static let exclusiveGroups: [[String]] = [
        ["to", "put", "presign"], ["token_command", "refresh_url"], ["http1_1", "http2"],
    ]

    /// The keys of `name`'s exclusive group, itself included; empty when it has none.
    static func exclusiveGroup(of name: String) -> [String] { exclusiveGroups.first { $0.contains(name) } ?? [] }

    /// Every upload option, in the order `config show` lists them. A new option is one line here; a test checks
    /// this table against the options `upload` declares, so it cannot fall behind.
    public static let all: [ProfileKey] = [
        .init("to", .text), .init("put", .text), .init("presign", .text), .init("media_type", .text),
        .init("presign_batch", .integer), .init("results", .text),
        .init("endpoint_url", .text, forDelete: true), .init("region", .text, forDelete: true),
        .init("path_style", .flag, forDelete: true), .init("multipart_threshold", .text), .init("part_size", .text),
        .init("checksum_algorithm", .text),
        .init("field", .text), .init("batch", .text),
        .init("fields", .list(separator: "="), long: nil, short: "F"),
        .init("headers", .list(separator: ": "), long: nil, short: "H"),
        .init("token", .text, forDelete: true, isSecret: true), .init("token_command", .text, forDelete: true),
        .init("refresh_url", .text, forDelete: true),
        .init("journal", .text), .init("no_resume", .flag), .init("retry_failed", .flag),
        .init("concurrency", .text), .init("retries", .integer), .init("stall_timeout", .number),
        .init("response_timeout", .number),
        .init("limit_rate", .text), .init("bwlimit", .text),
        .init("recursive", .flag, short: "r"), .init("hidden", .flag), .init("follow_symlinks", .flag, short: "L"),
        .init("include", .values), .init("exclude", .values),
        .init("max_age", .text), .init("min_age", .text), .init("order_by", .text),
        .init("no_tui", .flag), .init("json", .flag), .init("quiet", .flag, short: "q"), .init("exit_when_done", .flag),
        .init("detach", .flag),
        .init("log_file", .text), .init("log_level", .text),
        .init("fail_fast", .flag), .init("dry_run", .flag), .init("no_idempotency_key", .flag), .init("verify", .flag),
        .init("grace", .number),
        .init("insecure", .flag, forDelete: true), .init("cacert", .text, forDelete: true),
        .init("capath", .text, forDelete: true), .init("cert", .text, forDelete: true),
        .init("key", .text, forDelete: true), .init("proxy", .text, forDelete: true),
        .init("noproxy", .commaList, forDelete: true), .init("http1_1", .flag, long: "http1.1", forDelete: true),
        .init("http2", .flag, forDelete: true), .init("max_host_connections", .integer, forDelete: true),
        .init("types", .commaList), .init("min_files", .integer), .init("max_files", .integer),
        .init("max_size", .text),
        .init("max_total", .text), .init("skip_duplicates", .flag),
        .init("max_dimension", .integer), .init("convert", .text), .init("quality", .integer),
        .init("strip_metadata", .flag), .init("max_pixels", .integer),
    ]

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The key named `name` in a file.
    public static func named(_ name: String) -> ProfileKey? { byName[name] }

    /// The key a command-line option stands for: `--limit-rate`'s or `-H`'s.
    public static func forLong(_ long: String) -> ProfileKey? { all.first { $0.long == long } }
    public static func forShort(_ short: Character) -> ProfileKey? { all.first { $0.short == short } }

    /// The flag a command-line option switches off: `--no-verify`'s or `--resume`'s.
    public static func forInverse(_ long: String) -> ProfileKey? { all.first { $0.inverse == long } }

    /// The flag a file's key written as its opposite stands for: `no_resume`'s for `resume`, `verify`'s for
    /// `no_verify`.
    public static func forInverseName(_ name: String) -> ProfileKey? {
        forInverse(String(name.map { $0 == "_" ? "-" : $0 }))
    }

    /// The closest key to a misspelt one, for "did you mean".
    public static func suggestion(for name: String) -> String? {
        let scored = all.map { ($0.name, EditDistance.between(name, $0.name)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(1, name.count / 3) else { return nil }
        return best
    }
}

/// Levenshtein distance, for suggestions.
enum EditDistance {
    static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
