import Foundation

/// The AWS CLI's shared config, `AWS_CONFIG_FILE` else `~/.aws/config`: a profile's `region`, `endpoint_url` and,
/// as the CLI allows, its keys. Sections are `[default]` and `[profile NAME]`.
public struct AWSConfigFile: Sendable {
    /// The settings of the profile `AWS_PROFILE` (or `AWS_DEFAULT_PROFILE`, else `default`); empty without one.
    public let settings: [String: String]
    /// The file read, for messages.
    public let path: String
    /// The profile read.
    public let profile: String

    /// Reads the profile the environment names; a missing or unreadable file gives no settings (the credentials,
    /// which a run needs, say what is wrong with theirs).
    public init(environment: [String: String], home: String) {
        path = Self.path(environment: environment, home: home)
        profile = AWSCredentials.profileName(environment: environment) ?? "default"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            settings = [:]
            return
        }
        let sections = CredentialsFile.parse(text)
        settings = sections["profile \(profile)"] ?? (profile == "default" ? sections["default"] : nil) ?? [:]
    }

    /// The region the profile names.
    public var region: String? { settings["region"].flatMap { $0.isEmpty ? nil : $0 } }

    /// The endpoint the profile names (`endpoint_url`).
    public var endpointURL: String? { settings["endpoint_url"].flatMap { $0.isEmpty ? nil : $0 } }

    static func path(environment: [String: String], home: String) -> String {
        AWSCredentials.expanding(environment["AWS_CONFIG_FILE"], home: home)
            ?? (home as NSString)
            .appendingPathComponent(".aws/config")
    }
}
