import Foundation
import UploadDomain

/// Hides the secrets of this process's own command line, as curl hides `-u`'s password: `/proc/PID/cmdline` is
/// readable by every user of the machine for as long as the upload runs. The bytes of a `--token`, of a secret
/// header's value (`-H 'Authorization: …'`), of a secret form field's (`-F password=…`, named as a URL query's
/// secrets are) and of a URL's user info and secret query values become `*`; the arguments were read before, so
/// nothing of the run changes.
enum CommandLineSecrets {
    static func hide() {
        let arguments = CommandLine.arguments
        for index in arguments.indices.dropFirst() {
            let ranges = secretRanges(arguments[index], after: arguments[index - 1])
            guard !ranges.isEmpty, let bytes = CommandLine.unsafeArgv[index] else { continue }
            for range in ranges {
                for offset in range { bytes[offset] = CChar(UInt8(ascii: "*")) }
            }
        }
    }

    /// `text` with every secret of the command line replaced by `REDACTED`: for messages that quote an argument (a
    /// usage error names the option it could not parse).
    static func redacted(_ text: String) -> String {
        let arguments = CommandLine.arguments
        var result = text
        for index in arguments.indices.dropFirst() {
            let bytes = Array(arguments[index].utf8)
            for range in secretRanges(arguments[index], after: arguments[index - 1]) {
                let secret = String(decoding: bytes[range], as: UTF8.self)
                // A secret of a few letters would take them out of every word of the message.
                if secret.count >= 4 { result = result.replacingOccurrences(of: secret, with: "REDACTED") }
            }
        }
        return result
    }

    /// The byte ranges of `argument` that are secrets, given the argument before it.
    static func secretRanges(_ argument: String, after previous: String) -> [Range<Int>] {
        let bytes = Array(argument.utf8)
        if previous == "--token" { return [0..<bytes.count] }
        if argument.hasPrefix("--token=") { return ["--token=".utf8.count..<bytes.count] }
        if previous == "-H" { return headerValue(bytes) }
        if argument.hasPrefix("-H"), bytes.count > 2 {
            return headerValue(Array(bytes.dropFirst(2))).map { ($0.lowerBound + 2)..<($0.upperBound + 2) }
        }
        if previous == "-F" { return fieldValue(bytes) }
        if argument.hasPrefix("-F"), bytes.count > 2 {
            return fieldValue(Array(bytes.dropFirst(2))).map { ($0.lowerBound + 2)..<($0.upperBound + 2) }
        }
        guard argument.contains("://") else { return [] }
        return Redactor.secrets(in: argument).flatMap { occurrences(of: Array($0.utf8), in: bytes) }
    }

    /// The value of the header line `bytes`, when its name says it is a credential.
    private static func headerValue(_ bytes: [UInt8]) -> [Range<Int>] {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            Redactor.isSecretName(
                String(decoding: bytes[..<colon], as: UTF8.self).trimmingCharacters(in: .whitespaces))
        else { return [] }
        let value = bytes[(colon + 1)...].firstIndex { $0 != UInt8(ascii: " ") } ?? bytes.count
        return value < bytes.count ? [value..<bytes.count] : []
    }

    /// The value of the form field `bytes` (`name=value`), when its name is one a URL query's redaction hides.
    private static func fieldValue(_ bytes: [UInt8]) -> [Range<Int>] {
        guard let eq = bytes.firstIndex(of: UInt8(ascii: "=")),
            Redactor.isSecretName(String(decoding: bytes[..<eq], as: UTF8.self))
        else { return [] }
        return eq + 1 < bytes.count ? [(eq + 1)..<bytes.count] : []
    }

    private static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> [Range<Int>] {
        guard !needle.isEmpty, needle.count <= haystack.count else { return [] }
        return (0...(haystack.count - needle.count)).filter { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
            .map { $0..<($0 + needle.count) }
    }
}
