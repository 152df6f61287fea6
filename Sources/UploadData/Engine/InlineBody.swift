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
        if case .file(_, let type) = request.body { contentType = type }
        var heads: [[UInt8]] = []
        var closing: [UInt8] = []
        var boundary = ""
        if case .multipart(let fields, let fileField, _) = request.body {
            boundary = given ?? Self.boundary()
            contentType = "multipart/form-data; boundary=" + boundary
            let dashes = "--" + boundary + "\r\n"
            var text = ""
            for field in fields {
                text += dashes + "Content-Disposition: form-data; name=\"\(Self.escaped(field.name))\"\r\n\r\n"
                text += field.value + "\r\n"
            }
            for item in files {
                text += dashes + "Content-Disposition: form-data; name=\"\(Self.escaped(fileField))\"; filename=\""
                text += Self.escaped(item.relativePath) + "\"\r\nContent-Type: " + item.contentType + "\r\n\r\n"
                heads.append(Array(text.utf8))
                text = "\r\n"
            }
            closing = Array((text + "--" + boundary + "--\r\n").utf8)
            if fields.contains(where: { $0.value.contains(boundary) }) { return nil }
        }
        let fileBytes = files.reduce(0) { $0 + Int($1.size) }
        let capacity = heads.reduce(0) { $0 + $1.count } + fileBytes + closing.count
        storage = .allocate(byteCount: max(1, capacity), alignment: 16)
        var collides = false
        for (index, item) in files.enumerated() {
            if index < heads.count { append(heads[index]) }
            let start = count
            try read(item, descriptor: descriptor(index))
            let content = UnsafeRawBufferPointer(rebasing: storage[start..<count])
            contentHashes.append(FileHasher.hex(XXH3_128bits(content.baseAddress, content.count)))
            // A boundary inside a file would end its part early.
            if !boundary.isEmpty, !collides { collides = Self.contains(boundary.utf8.suffix(16), in: content) }
        }
        append(closing)
        if collides { return nil }
    }

    deinit {
        storage.deallocate()
    }

    /// The body, for `CURLOPT_POSTFIELDS`; valid while this object lives.
    var baseAddress: UnsafeMutableRawPointer { storage.baseAddress! }

    private func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { source in
            guard let from = source.baseAddress else { return }
            (storage.baseAddress! + count).copyMemory(from: from, byteCount: source.count)
        }
        count += bytes.count
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

    /// libcurl's form escaping of a part's name or file name.
    static func escaped(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == 13 || $0 == 10 }) else { return name }
        var text = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": text += "%22"
            case "\r": text += "%0D"
            case "\n": text += "%0A"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// libcurl's shape of boundary (24 dashes, 16 hex digits), from a random seed of the process and a count, so
    /// no two bodies share one and none costs a system call.
    static func boundary() -> String {
        var mixed = seed &+ counter.add(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        let hex = String(mixed, radix: 16)
        return String(repeating: "-", count: 24) + String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static let seed = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// Whether `needle` (the boundary's random digits) occurs in `haystack`.
    private static func contains(_ needle: Substring.UTF8View, in haystack: UnsafeRawBufferPointer) -> Bool {
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
