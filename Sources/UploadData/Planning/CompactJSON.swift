import Foundation

/// One-line JSON with sorted keys and unescaped slashes: results must fit on one NDJSON line.
enum CompactJSON {
    static func text(_ object: Any) -> String? {
        (try? JSONSerialization.data(
            withJSONObject: object, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) }
    }
}
