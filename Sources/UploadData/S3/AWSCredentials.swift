import Foundation
import UploadDomain

/// An AWS access key pair, with a session token when the keys are temporary.
///
/// `description`, `debugDescription` and the reflection mirror redact the secret key and the token, so the
/// credentials can sit in a logged value without leaking.
public struct AWSCredentials: Sendable, Equatable {
    /// The access key ID, e.g. `AKIAIOSFODNN7EXAMPLE`; not secret, it names the key.
    public var accessKeyID: String
    /// The secret access key; never log it.
    public var secretAccessKey: String
    /// The session token of temporary credentials; never log it.
    public var sessionToken: String?

    /// Creates credentials.
    /// - Parameters:
    ///   - accessKeyID: The access key ID.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: The session token, for temporary credentials only.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// Finds credentials the way the AWS CLI does, minus SSO and instance roles.
    ///
    /// First `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`) from the environment;
    /// else the profile `AWS_PROFILE` (or `AWS_DEFAULT_PROFILE`, else `default`) of the shared credentials
    /// file `AWS_SHARED_CREDENTIALS_FILE` (else `<home>/.aws/credentials`), else that profile's keys in the config
    /// file (`AWSConfigFile`).
    /// - Parameters:
    ///   - environment: The process environment, e.g. `ProcessInfo.processInfo.environment`.
    ///   - home: The user's home folder, used for `~/.aws/credentials` and a leading `~/` in the file path.
    /// - Returns: The credentials, or nil when neither the environment nor the default profile has any.
    /// - Throws: `S3Error` when only half of a key pair is set, when a profile named by `AWS_PROFILE` does
    ///   not exist, or when the credentials file cannot be read.
    public static func resolve(environment: [String: String], home: String) throws(S3Error) -> AWSCredentials? {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                return nil
            }
            return text
        }

        switch (value("AWS_ACCESS_KEY_ID"), value("AWS_SECRET_ACCESS_KEY")) {
        case let (id?, secret?):
            return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        case (_?, nil):
            throw S3Error(
                .incompleteCredentials, context: "AWS_ACCESS_KEY_ID",
                reason: "is set but AWS_SECRET_ACCESS_KEY is not; set both, or unset it to use ~/.aws/credentials")
        case (nil, _?):
            throw S3Error(
                .incompleteCredentials, context: "AWS_SECRET_ACCESS_KEY",
                reason: "is set but AWS_ACCESS_KEY_ID is not; set both, or unset it to use ~/.aws/credentials")
        case (nil, nil):
            break
        }

        let namedProfile = profileName(environment: environment)
        let profile = namedProfile ?? "default"
        let path = credentialsFilePath(environment: environment, home: home)
        var entries: [String: String]?
        if FileManager.default.fileExists(atPath: path) {
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw S3Error(
                    .unreadableCredentialsFile, context: path, reason: "cannot be read; check its permissions",
                    underlying: error)
            }
            entries = CredentialsFile.parse(text)[profile]
        }
        // The aws CLI also takes a profile's keys from its config file.
        let config = AWSConfigFile(environment: environment, home: home)
        if entries == nil, config.settings["aws_access_key_id"] != nil { entries = config.settings }
        guard let entries else {
            guard let namedProfile else { return nil }
            throw S3Error(
                .profileNotFound, context: path,
                reason: "has no profile [\(namedProfile)], nor has \(config.path) [profile \(namedProfile)]; check "
                    + "AWS_PROFILE or add the profile")
        }
        guard let id = entries["aws_access_key_id"], !id.isEmpty,
            let secret = entries["aws_secret_access_key"], !secret.isEmpty
        else {
            throw S3Error(
                .incompleteCredentials, context: path,
                reason: "profile [\(profile)] needs both aws_access_key_id and aws_secret_access_key")
        }
        let token = entries["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 }
        return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }

    /// The profile the environment names: `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`.
    static func profileName(environment: [String: String]) -> String? {
        for name in ["AWS_PROFILE", "AWS_DEFAULT_PROFILE"] {
            if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        return nil
    }

    /// `AWS_SHARED_CREDENTIALS_FILE` with a leading `~/` expanded, else `<home>/.aws/credentials`.
    static func credentialsFilePath(environment: [String: String], home: String) -> String {
        expanding(environment["AWS_SHARED_CREDENTIALS_FILE"], home: home)
            ?? (home as NSString).appendingPathComponent(".aws/credentials")
    }

    /// A configured path with a leading `~/` expanded; nil when not configured.
    static func expanding(_ configured: String?, home: String) -> String? {
        guard let configured, !configured.isEmpty else { return nil }
        return HomePath.expanding(configured, home: home)
    }
}

/// The INI dialect of `~/.aws/credentials`: `[profile]` sections of `key = value` lines, `#` and `;` comments.
enum CredentialsFile {
    /// Profiles by name, each a map of lower-cased keys to trimmed values; later duplicates win.
    static func parse(_ text: String) -> [String: [String: String]] {
        var profiles: [String: [String: String]] = [:]
        var current: String?
        // Windows editors may save the file with a byte-order mark, which would hide the first section.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    current = nil
                    continue
                }
                let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                current = name
                if profiles[name] == nil { profiles[name] = [:] }
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            profiles[current, default: [:]][key] = value
        }
        return profiles
    }
}

// MARK: - Description

extension AWSCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key ID with the secret and token redacted.
    public var description: String {
        "AWSCredentials(accessKeyID: \(accessKeyID), secretAccessKey: <redacted>, sessionToken: "
            + (sessionToken == nil ? "nil" : "<redacted>") + ")"
    }

    /// Same as `description`.
    public var debugDescription: String { description }

    /// A mirror without the secret or token, so `dump` and default struct printing cannot leak them.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessKeyID": accessKeyID, "secretAccessKey": "<redacted>",
                "sessionToken": sessionToken == nil ? "nil" : "<redacted>",
            ], displayStyle: .struct)
    }
}
