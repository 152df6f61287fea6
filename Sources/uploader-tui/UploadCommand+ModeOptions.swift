import UploaderCLI

/// Options that only one kind of destination uses, refused when typed for another: ignored, they would leave the
/// user believing they applied.
extension UploadCommand {
    /// The kinds of destination, as the options that choose them are written.
    enum Mode: String {
        case multipart = "--to URL"
        case s3 = "--to s3://"
        case put = "--put"
        case presign = "--presign"
    }

    /// Options of one or some modes (by their keys in the profiles file), and what they apply to.
    private struct ModeOptions {
        let keys: [String]
        let appliesTo: String
        let modes: Set<Mode>
    }

    private static let modeOptions: [ModeOptions] = [
        ModeOptions(
            keys: ["batch", "fields", "field"], appliesTo: "--to URL (multipart forms)", modes: [.multipart]),
        ModeOptions(keys: ["media_type", "presign_batch"], appliesTo: "--presign", modes: [.presign]),
        ModeOptions(
            keys: ["multipart_threshold", "part_size", "checksum_algorithm", "endpoint_url", "region", "path_style"],
            appliesTo: "--to s3:// (S3)", modes: [.s3]),
        // S3 requests are signed with the AWS credentials: a bearer token has no place in them.
        ModeOptions(
            keys: ["token", "token_command", "refresh_url"], appliesTo: "HTTP destinations",
            modes: [.multipart, .put, .presign]),
    ]

    /// The keys of the settings typed on the command line, `arguments` as the user gave them (a profile's settings,
    /// which `ProfileArguments` puts before them, are not among them). A flag switched off (`--no-path-style`) asks
    /// for nothing, so it is not among them either.
    static func typedSettings(_ arguments: [String]) -> Set<String> {
        let options = arguments.first == "upload" ? Array(arguments.dropFirst()) : arguments
        return Set(CommandLineSettings(arguments: options).values.filter { $0.value != .flag(false) }.keys)
    }

    /// Refuses the options typed on the command line that `mode` does not use, all in one line:
    /// `--batch applies to --to URL (multipart forms), not --put`. A profile or `[defaults]` holds settings for
    /// several modes, so what it sets is left unused without a word.
    /// - Parameter typed: the keys of the settings typed (`typedSettings`).
    /// - Throws: `UsageError`.
    static func refuseOptions(notUsedBy mode: Mode, typed: Set<String>) throws {
        var refusals: [String] = []
        for family in modeOptions where !family.modes.contains(mode) {
            let given = family.keys.filter(typed.contains).compactMap { ProfileKey.named($0)?.spelling }
            guard !given.isEmpty else { continue }
            let verb = given.count == 1 ? "applies" : "apply"
            refusals.append("\(Format.listed(given)) \(verb) to \(family.appliesTo), not \(mode.rawValue)")
        }
        guard refusals.isEmpty else { throw UsageError(description: refusals.joined(separator: "; ")) }
    }
}
