import UploadDomain

/// A profiles file that cannot be used, or a profile that is not in it: one line naming the file, the line and the
/// cause; the run exits 2 before anything is sent. The file is named as the user knows it (`~/.config/…` or the
/// path `--config` gave), whole, in every error about it.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// The file cannot be read (missing when named with `--config` or needed for `-p`, a folder, or unreadable).
        case unreadable
        /// TOML syntax.
        case syntax
        /// A section other than `[defaults]` and `[profile.NAME]`, a key outside any section, or a setting no option
        /// has.
        case unknownKey
        /// A value of the wrong TOML type.
        case wrongType
        /// Two settings of one section that exclude each other (`to` and `put`).
        case conflicting
        /// `-p NAME` names no profile of the file.
        case unknownProfile
    }

    public let code: Code
    /// The file as shown to the user (`~/.config/…`).
    public let file: String
    public let line: Int?
    public let reason: String

    public init(code: Code, file: String, line: Int?, reason: String) {
        self.code = code
        self.file = file
        self.line = line
        self.reason = reason
    }

    // MARK: - Description

    /// One line, whatever a key, a profile name or the TOML parser put in it: control characters escaped.
    public var description: String {
        let text =
            switch code {
            case .unknownProfile, .unreadable: reason
            default: line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)"
            }
        return Sanitizer.displayName(text)
    }
}
