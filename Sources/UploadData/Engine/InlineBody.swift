import CXXHash
import Glibc
import Synchronization
import UploadDomain

/// A body small enough to go out in the same write as the request's headers.
///
/// libcurl appends a `POSTFIELDS` body of under 64 KiB to the buffer that holds the request's headers, where a MIME
/// or read-callback body always costs a second `send`, and the server a second read (libcurl 7.88; later versions
/// fill that buffer from any body). So the files of a small request are read whole when it is prepared, hashed
/// (XXH3-128, as `FileBody` does on the way) and, for a multipart request, framed here exactly as libcurl's MIME
/// API frames them: the same part headers, `"`, CR and LF in names percent-encoded.
final class InlineBody {
    /// File bytes at most, so that with the framing the body stays under libcurl's 64 KiB.
    static let limit: Int64 = 48 << 10

    private let storage: UnsafeMutableRawBufferPointer
    /// The body's length (the storage may be longer).
    private(set) var count = 0
    /// The request's `Content-Type`: a file's own, or multipart with the boundary.
    private(set) var contentType = ""
    /// XXH3-128 of each file, in the request's order.
    private(set) var contentHashes: [String?] = []

    /// Whether `request` is sent inline: a multipart or whole-file body of at most `limit` file bytes.
    static func fits(_ request: TransferRequest) -> Bool {
        switch request.body {
        case .multipart(_, _, let files): files.reduce(0) { $0 + $1.size } <= limit
        case .file(let item, _): item.size <= limit
        case .fileRange, .bytes, .none: false
        }
    }

    /// Reads the files of `request` (one that `fits`); `descriptor(i)` takes file i, already open (closed here),
    /// or gives -1; `boundary` is for tests. Nil in the rare case the boundary occurs in a file or field: that
    /// request goes the MIME way instead.
    /// - Throws: `fileUnreadable` when a file cannot be read, `fileChanged` when it is shorter than scanned.
    init?(_ request: TransferRequest, boundary given: String? = nil, descriptor: (Int) -> Int32) throws(UploadError) {
        let files = request.files
        var capacity = files.reduce(0) { $0 + Int($1.size) }
        var form: (fields: [FormField], fileField: String, boundary: [UInt8])?
        switch request.body {
        case .multipart(let fields, let fileField, _):
            let boundary = given.map { Array($0.utf8) } ?? Self.boundary()
            let text = String(decoding: boundary, as: UTF8.self)
            if fields.contains(where: { $0.value.contains(text) }) { return nil }
            contentType = "multipart/form-data; boundary=" + text
            form = (fields, fileField, boundary)
            // A part's delimiter and headers: the fixed text is under 90 bytes, names escaped at most three times
            // as long.
            let fixed = 90 + boundary.count
            capacity += fields.reduce(0) { $0 + fixed + 3 * $1.name.utf8.count + $1.value.utf8.count }
            capacity += files.reduce(0) {
                $0 + fixed + 3 * (fileField.utf8.count + $1.relativePath.utf8.count) + $1.contentType.utf8.count
            }
            capacity += fixed
        case .file(_, let type):
            contentType = type
        case .fileRange, .bytes, .none:
            break
        }
        storage = .allocate(byteCount: max(1, capacity), alignment: 16)
        var collides = false
        if let form {
            for field in form.fields {
                opening(form.boundary)
                put("Content-Disposition: form-data; name=\"")
                putEscaped(field.name)
                put("\"\r\n\r\n")
                put(field.value)
            }
        }
        for (index, item) in files.enumerated() {
            if let form {
                opening(form.boundary)
                put("Content-Disposition: form-data; name=\"")
                putEscaped(form.fileField)
                put("\"; filename=\"")
                putEscaped(item.relativePath)
                put("\"\r\nContent-Type: ")
                put(item.contentType)
                put("\r\n\r\n")
            }
            let start = count
            try read(item, descriptor: descriptor(index))
            let content = UnsafeRawBufferPointer(rebasing: storage[start..<count])
            contentHashes.append(FileHasher.hex(XXH3_128bits(content.baseAddress, content.count)))
            // A boundary inside a file would end its part early.
            if let form, !collides { collides = Self.contains(form.boundary.suffix(16), in: content) }
        }
        if let form {
            put("\r\n--")
            put(form.boundary)
            put("--\r\n")
        }
        if collides { return nil }
    }

    deinit {
        storage.deallocate()
    }

    /// The body, for `CURLOPT_POSTFIELDS`; valid while this object lives.
    var baseAddress: UnsafeMutableRawPointer { storage.baseAddress! }

    /// A part's delimiter: CR LF before every one but the first.
    private func opening(_ boundary: [UInt8]) {
        if count > 0 { put("\r\n") }
        put("--")
        put(boundary)
        put("\r\n")
    }

    private func put(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, !bytes.isEmpty else { return }
        assert(count + bytes.count <= storage.count, "the capacity counted in init")
        (storage.baseAddress! + count).copyMemory(from: from, byteCount: bytes.count)
        count += bytes.count
    }

    private func put(_ text: StaticString) {
        put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { put($0) }
    }

    private func put(_ text: String) {
        var text = text
        text.withUTF8 { put(UnsafeRawBufferPointer($0)) }
    }

    /// libcurl's form escaping of a part's name or file name: `"`, CR and LF percent-encoded.
    private func putEscaped(_ name: String) {
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "\""): put("%22")
            case 13: put("%0D")
            case 10: put("%0A")
            default:
                storage[count] = byte
                count += 1
            }
        }
    }

    /// Appends the whole of `item`, read from `descriptor` (closed here) or opened by path.
    private func read(_ item: UploadItem, descriptor given: Int32) throws(UploadError) {
        let descriptor = given >= 0 ? given : item.path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw UploadError(.fileUnreadable, file: item.relativePath, cause: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var done = 0
        while done < Int(item.size) {
            let got = pread(descriptor, storage.baseAddress! + count + done, Int(item.size) - done, off_t(done))
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else {
                throw UploadError(.fileUnreadable, file: item.relativePath, cause: String(cString: strerror(errno)))
            }
            guard got > 0 else {
                throw UploadError(.fileChanged, file: item.relativePath, cause: "size \(item.size) became \(done)")
            }
            done += got
        }
        count += done
    }

    /// libcurl's shape of boundary (24 dashes, 16 hex digits), from a random seed of the process and a count, so
    /// no two bodies share one and none costs a system call.
    static func boundary() -> [UInt8] {
        var mixed = seed &+ counter.add(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        let digits = withUnsafeBytes(of: mixed) { URIEncoding.hex($0) }
        return [UInt8](repeating: UInt8(ascii: "-"), count: 24) + digits.utf8
    }

    private static let seed = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// Whether `needle` (the boundary's random digits) occurs in `haystack`.
    private static func contains(_ needle: ArraySlice<UInt8>, in haystack: UnsafeRawBufferPointer) -> Bool {
        let needle = Array(needle)
        guard let base = haystack.baseAddress, needle.count <= haystack.count else { return false }
        let last = haystack.count - needle.count
        var from = 0
        while from <= last, let hit = memchr(base + from, Int32(needle[0]), last - from + 1) {
            let at = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(base + at, needle, needle.count) == 0 { return true }
            from = at + 1
        }
        return false
    }
}
