/// Masks the credentials of `-H` and `-F` arguments where they are quoted back to the user (`config show`, usage
/// errors), by the rules the process's own command line is masked with.
extension Redactor {
    /// What a masked value is shown as.
    public static let mask = "****"

    /// `name=value` with the value masked when the name says it is a secret: `password=****`.
    public static func maskedField(_ pair: String) -> String {
        guard let eq = pair.firstIndex(of: "="), isSecretName(pair[..<eq]) else { return pair }
        return String(pair[...eq]) + mask
    }

    /// A `-H` line with a credential's value masked: `Authorization: ****`.
    ///
    /// A refused header may hold line breaks and more headers: each line is judged alone, and the mask runs from the
    /// first secret to the end. A line that is not `Name: value` has no value to tell apart: its first word stays
    /// when it names a secret header (`Authorization ****`), and the whole line is masked otherwise, as it may be a
    /// bare token.
    public static func maskedHeader(_ text: String) -> String {
        var result = ""
        var line = ""
        for scalar in text.unicodeScalars {
            guard scalar == "\r" || scalar == "\n" else {
                line.unicodeScalars.append(scalar)
                continue
            }
            guard let masked = maskedHeaderLine(line) else {
                result += line
                result.unicodeScalars.append(scalar)
                line = ""
                continue
            }
            return result + masked
        }
        return result + (maskedHeaderLine(line) ?? line)
    }

    /// One line of a `-H` argument masked, or nil when it holds no secret.
    private static func maskedHeaderLine(_ line: String) -> String? {
        guard line.contains(where: { $0 != " " && $0 != "\t" }) else { return nil }
        if let colon = line.firstIndex(of: ":"), case let name = String(line[..<colon]).trimmingSpaces,
            HTTPHeader(name: name, value: "") != nil
        {
            return isSecretName(name) ? String(line[..<colon]) + ": " + mask : nil
        }
        let start = line.firstIndex { $0 != " " && $0 != "\t" } ?? line.startIndex
        let firstWord = line[start...].prefix { $0 != " " && $0 != "\t" && $0 != ":" }
        return isSecretName(String(firstWord)) ? String(firstWord) + " " + mask : mask
    }
}
