import CXXHash
import Glibc
import UploadDomain

/// A body small enough to go out in the same write as the request's headers.
///
/// libcurl appends a `POSTFIELDS` body of under 64 KiB to the buffer that holds the request's headers, where a
/// read-callback body always costs a second `send`, and the server a second read (libcurl 7.88; later versions
/// fill that buffer from any body). So the files of a small request are read whole when it is prepared, hashed
/// (XXH3-128, as `FileBody` does on the way) and, for a multipart request, framed as a streamed one is
/// (`MultipartFraming`).
final class InlineBody: MultipartFraming {
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
    /// request is streamed instead, with a boundary of its own.
    /// - Throws: `fileUnreadable` when a file cannot be read, `fileChanged` when it is shorter than scanned.
    init?(_ request: TransferRequest, boundary given: String? = nil, descriptor: (Int) -> Int32) throws(UploadError) {
        let files = request.files
        var capacity = files.reduce(0) { $0 + Int($1.size) }
        var form: (fields: [FormField], fileField: String, boundary: [UInt8])?
        switch request.body {
        case .multipart(let fields, let fileField, _):
            let boundary = given.map { Array($0.utf8) } ?? MultipartBoundary.make()
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
            for field in form.fields { putField(field, boundary: form.boundary) }
        }
        for (index, item) in files.enumerated() {
            if let form { putFileHead(item, fileField: form.fileField, boundary: form.boundary) }
            let start = count
            try read(item, descriptor: descriptor(index))
            let content = UnsafeRawBufferPointer(rebasing: storage[start..<count])
            contentHashes.append(FileHasher.hex(XXH3_128bits(content.baseAddress, content.count)))
            // A boundary inside a file would end its part early.
            if let form, !collides { collides = Self.contains(form.boundary.suffix(16), in: content) }
        }
        if let form { putEnd(boundary: form.boundary) }
        if collides { return nil }
    }

    deinit {
        storage.deallocate()
    }

    /// The body, for `CURLOPT_POSTFIELDS`; valid while this object lives.
    var baseAddress: UnsafeMutableRawPointer { storage.baseAddress! }

    func put(_ bytes: UnsafeRawBufferPointer) {
        guard let from = bytes.baseAddress, !bytes.isEmpty else { return }
        assert(count + bytes.count <= storage.count, "the capacity counted in init")
        (storage.baseAddress! + count).copyMemory(from: from, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends the whole of `item`, read from `descriptor` (closed here) or opened by path.
    private func read(_ item: UploadItem, descriptor given: Int32) throws(UploadError) {
        let descriptor = given >= 0 ? given : try ScannedFile.open(item)
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
