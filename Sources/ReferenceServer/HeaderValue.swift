/// A parsed header value of the form `value; name=token; name="quoted string"`, as used by
/// `Content-Type` and `Content-Disposition`.
struct HeaderValue: Equatable, Sendable {
    /// The part before the first `;`, lowercased and trimmed (e.g. `multipart/form-data`).
    var value: String
    /// Parameters keyed by lowercased name; values are kept exactly as sent.
    var parameters: [String: String]

    /// Parses a header value.
    ///
    /// Quoted strings are taken verbatim up to the closing quote, without backslash unescaping:
    /// browsers and libcurl follow the HTML5 form rules (they percent-encode `"`, CR and LF and send
    /// `\` as is), so treating `\` as an escape would corrupt Windows-style names before the
    /// sanitiser gets to see them.
    init(parsing header: String) {
        var scalars = Substring(header).unicodeScalars[...]
        value = String(Self.take(&scalars, until: ";")).trimmingWhitespace().lowercased()
        parameters = [:]
        while !scalars.isEmpty {
            scalars = scalars.dropFirst()  // the ';'
            let name = String(Self.take(&scalars, until: "=;")).trimmingWhitespace().lowercased()
            var parameterValue = ""
            if scalars.first == "=" {
                scalars = scalars.dropFirst()
                scalars = scalars.drop(while: { $0 == " " || $0 == "\t" })
                if scalars.first == "\"" {
                    scalars = scalars.dropFirst()
                    parameterValue = String(Self.take(&scalars, until: "\""))
                    scalars = scalars.dropFirst()  // closing quote, if any
                    _ = Self.take(&scalars, until: ";")  // junk after the quoted string
                } else {
                    parameterValue = String(Self.take(&scalars, until: ";")).trimmingWhitespace()
                }
            }
            if !name.isEmpty, parameters[name] == nil {
                parameters[name] = parameterValue
            }
        }
    }

    /// Removes and returns the prefix of `scalars` up to (not including) any of `stops`.
    private static func take(
        _ scalars: inout Substring.UnicodeScalarView.SubSequence,
        until stops: String
    ) -> String.UnicodeScalarView {
        let stopSet = Set(stops.unicodeScalars)
        let end = scalars.firstIndex(where: { stopSet.contains($0) }) ?? scalars.endIndex
        let taken = String.UnicodeScalarView(scalars[scalars.startIndex..<end])
        scalars = scalars[end...]
        return taken
    }
}

extension String {
    /// The string without leading/trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(scalars[first...last])
    }
}

extension String.UnicodeScalarView {
    fileprivate func trimmingWhitespace() -> String { String(self).trimmingWhitespace() }
}
