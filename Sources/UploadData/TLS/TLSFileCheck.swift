import CCurl
import Foundation
import UploadDomain

/// Checks the TLS files of a run before anything is sent, so a wrong path or a key that is not its certificate's
/// is one usage error instead of a failure per file at connection time.
///
/// The contents are checked with the OpenSSL libcurl uses (loaded at run time, as libcurl is); with a libcurl on
/// another TLS library only the paths are checked.
public enum TLSFileCheck {
    /// Why the CA file cannot be used, in one line naming it, or nil.
    public static func problem(caFile source: TLSTrust.Source) -> String? {
        let name = label(source)
        if let problem = readProblem(source.path) { return "\(name): \(problem)" }
        // A bundle named by a variable is the system's, set up for every tool: parsing its hundred-odd
        // certificates cost each run a tenth of a second before anything was sent, for http:// URLs too.
        guard source.origin == "--cacert" else { return nil }
        var reason = [CChar](repeating: 0, count: 256)
        switch ccurl_tls_check_ca_file(source.path, &reason, reason.count) {
        case CCURL_TLS_BAD_CA_FILE:
            return "\(name): no PEM CA certificate in it (\(text(reason)))"
        default:
            return nil
        }
    }

    /// Why the CA folder cannot be used, in one line naming it, or nil.
    public static func problem(caPath source: TLSTrust.Source) -> String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isFolder) else {
            return "\(label(source)): no such folder"
        }
        guard isFolder.boolValue else { return "\(label(source)): not a folder (a single CA file goes to --cacert)" }
        guard access(source.path, R_OK | X_OK) == 0 else {
            return "\(label(source)): \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Why the client certificate and key cannot be used together, in one line naming the file, or nil.
    /// - Parameters:
    ///   - certificate: `--cert`, a PEM certificate (and the key too when `key` is nil, as curl allows).
    ///   - key: `--key`, a PEM private key without a pass phrase.
    public static func problem(certificate: String, key: String?) -> String? {
        if let problem = readProblem(certificate) { return "--cert \(display(certificate)): \(problem)" }
        if let key, let problem = readProblem(key) { return "--key \(display(key)): \(problem)" }
        var reason = [CChar](repeating: 0, count: 256)
        let result = ccurl_tls_check_identity(certificate, key, &reason, reason.count)
        // OpenSSL's last reason is at times only where it failed ("PEM lib"), which tells a user nothing.
        let reasonText = text(reason)
        let why = reasonText.hasSuffix(" lib") ? "" : " (\(reasonText))"
        let keyFile = key ?? certificate
        let keyLabel = key == nil ? "--cert \(display(certificate))" : "--key \(display(keyFile))"
        switch result {
        case CCURL_TLS_BAD_CERTIFICATE:
            return "--cert \(display(certificate)): no PEM certificate in it\(why)"
        case CCURL_TLS_BAD_KEY where isEncrypted(keyFile):
            return "\(keyLabel): the private key is encrypted; give it without a pass phrase"
        case CCURL_TLS_BAD_KEY:
            let hint = key == nil ? "; give the key with --key" : ""
            return "\(keyLabel): no PEM private key in it\(why)\(hint)"
        case CCURL_TLS_KEY_MISMATCH:
            return "\(keyLabel): the private key does not match the certificate in \(display(certificate))\(why)"
        default:
            return nil
        }
    }

    /// A C string the shim wrote into `buffer`.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func label(_ source: TLSTrust.Source) -> String {
        source.origin.hasPrefix("--")
            ? "\(source.origin) \(display(source.path))" : "\(source.origin)=\(display(source.path))"
    }

    private static func display(_ path: String) -> String {
        Sanitizer.displayName(path)
    }

    /// Missing, a folder, or unreadable: the errno text, as a user would see it from `cat`.
    private static func readProblem(_ path: String) -> String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return "no such file" }
        if isFolder.boolValue { return "is a folder, not a file" }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        return nil
    }

    private static func isEncrypted(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 64 << 10)) ?? Data(), as: UTF8.self)
        return head.contains("ENCRYPTED")
    }
}
