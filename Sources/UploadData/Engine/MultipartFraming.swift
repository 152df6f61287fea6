import Synchronization
import UploadDomain

/// Writes a multipart/form-data body exactly as libcurl's MIME API frames one (7.88): the same delimiters and part
/// headers, `"`, CR and LF in names percent-encoded. `InlineBody` and `MultipartStream` frame their bodies here;
/// the file contents go between a file part's head and the next delimiter.
protocol MultipartFraming: AnyObject {
    /// Bytes written so far.
    var count: Int { get }
    func put(_ bytes: UnsafeRawBufferPointer)
}

extension MultipartFraming {
    /// A text field's part: delimiter, headers and value.
    func putField(_ field: FormField, boundary: [UInt8]) {
        putDelimiter(boundary)
        put("Content-Disposition: form-data; name=\"")
        putEscaped(field.name)
        put("\"\r\n\r\n")
        put(field.value)
    }

    /// A file part's delimiter and headers; its content comes next.
    func putFileHead(_ item: UploadItem, fileField: String, boundary: [UInt8]) {
        putDelimiter(boundary)
        put("Content-Disposition: form-data; name=\"")
        putEscaped(fileField)
        put("\"; filename=\"")
        putEscaped(item.relativePath)
        put("\"\r\nContent-Type: ")
        put(item.contentType)
        put("\r\n\r\n")
    }

    /// The closing delimiter.
    func putEnd(boundary: [UInt8]) {
        put("\r\n--")
        put(boundary)
        put("--\r\n")
    }

    /// A part's delimiter: CR LF before every one but the first.
    private func putDelimiter(_ boundary: [UInt8]) {
        if count > 0 { put("\r\n") }
        put("--")
        put(boundary)
        put("\r\n")
    }

    func put(_ text: StaticString) {
        put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { put($0) }
    }

    func put(_ text: String) {
        var text = text
        text.withUTF8 { put(UnsafeRawBufferPointer($0)) }
    }

    /// libcurl's form escaping of a part's name or file name: `"`, CR and LF percent-encoded.
    private func putEscaped(_ name: String) {
        var name = name
        name.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() {
                let escape: StaticString
                switch byte {
                case UInt8(ascii: "\""): escape = "%22"
                case 13: escape = "%0D"
                case 10: escape = "%0A"
                default: continue
                }
                put(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<index])))
                put(escape)
                start = index + 1
            }
            put(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...])))
        }
    }
}

/// Boundaries of libcurl's shape (24 dashes, 16 hex digits), from a random seed of the process and a count, so no
/// two bodies share one and none costs a system call.
enum MultipartBoundary {
    static func make() -> [UInt8] {
        var mixed = seed &+ counter.add(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        let digits = withUnsafeBytes(of: mixed) { URIEncoding.hex($0) }
        return [UInt8](repeating: UInt8(ascii: "-"), count: 24) + digits.utf8
    }

    private static let seed = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)
}
