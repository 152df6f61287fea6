import Foundation
import UploadDomain
import UploaderTUI

@testable import UploaderCLI

/// Untrusted text made printable, on fuzzed UTF-8 (file names, response bodies).
///
/// Property (issue 15): what `Sanitizer.displayName` and `Sanitizer.excerpt` return holds no C0 control, DEL, C1
/// control or bidi control, and neither does what the screen makes of it (`Glyphs.display`, `DisplayWidth`);
/// `displayName` keeps safe text as it is, so applying it twice changes nothing. An NDJSON string holds no control
/// byte and reads back as the text.
enum SanitizerFuzzer {
    static func run(_ input: [UInt8]) {
        var reader = FuzzInput(input)
        let limit = Int(reader.byte())
        let width = Int(reader.byte() % 64)
        let text = reader.rest().text

        let name = Sanitizer.displayName(text)
        TerminalSafety.require(name, "displayName")
        require(Sanitizer.displayName(name) == name, "displayName is not idempotent on \(text.debugDescription)")
        if TerminalSafety.firstUnsafe(in: text) == nil {
            require(name == text, "displayName changed safe text \(text.debugDescription)")
        }

        let excerpt = Sanitizer.excerpt(text, limit: limit)
        TerminalSafety.require(excerpt, "excerpt")
        require(excerpt.count <= limit + 1, "excerpt of \(excerpt.count) characters for limit \(limit)")

        for glyphs in [Glyphs.unicode, Glyphs.ascii] {
            let shown = glyphs.display(text)
            TerminalSafety.require(shown, "Glyphs.display")
            require(!glyphs.asciiOnly || shown.unicodeScalars.allSatisfy(\.isASCII), "non-ASCII in ASCII mode")
            let cut = DisplayWidth.truncate(shown, to: width, ellipsis: glyphs.ellipsis)
            TerminalSafety.require(cut, "DisplayWidth.truncate")
            require(DisplayWidth.of(cut) <= width, "truncated to \(DisplayWidth.of(cut)) columns, not \(width)")
            TerminalSafety.require(DisplayWidth.pad(shown, to: width, ellipsis: glyphs.ellipsis), "DisplayWidth.pad")
        }

        let quoted = JSONLine.quote(text)
        require(!quoted.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "control byte in \(quoted.debugDescription)")
        let decoded = try? JSONSerialization.jsonObject(with: Data("[\(quoted)]".utf8)) as? [String]
        require(decoded == [text], "\(quoted.debugDescription) reads back as \(String(describing: decoded))")
    }
}
