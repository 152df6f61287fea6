import Glibc
import UploadDomain

/// A multipart/form-data body streamed through the read callback: the framing (`MultipartFraming`, as libcurl's
/// MIME API frames it) held in memory, the files read from disk between it (`FileBody`, hashed on the way), at
/// most `readLimit` bytes a read (`FileBody.frameFittingRead` over HTTP/2 and TLS).
///
/// Touched only on its transfer's curl thread, from libcurl's read and seek callbacks.
final class MultipartStream: MultipartFraming {
    private enum Segment {
        case bytes(start: Int, end: Int)
        case file(FileBody)

        var length: Int64 {
            switch self {
            case .bytes(let start, let end): Int64(end - start)
            case .file(let body): body.length
            }
        }
    }

    /// The framing, all segments' bytes one after the other.
    private var framing: [UInt8] = []
    private var segments: [Segment] = []
    /// Where the framing's bytes not yet in a segment begin.
    private var pending = 0
    /// The segment being read, and how far into it (bytes segments only; a file keeps its own place).
    private var current = 0
    private var offset = 0
    /// The body's `Content-Type`, with the boundary.
    let contentType: String
    /// The body's length, for `CURLOPT_POSTFIELDSIZE_LARGE`.
    private(set) var length: Int64 = 0
    /// The most one read hands libcurl.
    var readLimit = Int.max

    /// The body of `fields`, then each of `files` in a part named `fileField`; `bodies` are the files' readers, in
    /// the same order.
    init(fields: [FormField], fileField: String, files: [UploadItem], bodies: [FileBody], boundary: [UInt8]) {
        contentType = "multipart/form-data; boundary=" + String(decoding: boundary, as: UTF8.self)
        for field in fields { putField(field, boundary: boundary) }
        for (item, body) in zip(files, bodies) {
            putFileHead(item, fileField: fileField, boundary: boundary)
            closeBytes()
            segments.append(.file(body))
        }
        putEnd(boundary: boundary)
        closeBytes()
        length = segments.reduce(0) { $0 + $1.length }
    }

    /// The framing's bytes so far: what `MultipartFraming` asks to know the first delimiter.
    var count: Int { framing.count }

    func put(_ bytes: UnsafeRawBufferPointer) {
        framing.append(contentsOf: bytes)
    }

    /// Fills `buffer` with the next bytes, up to `capacity` and `readLimit`; 0 at the end, -1 when a file cannot be
    /// read or ended early (the transfer's check then names the change), `FileBody.paused` when the bandwidth cap
    /// has no tokens left.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let wanted = min(capacity, readLimit)
        var filled = 0
        while filled < wanted, current < segments.count {
            switch segments[current] {
            case .bytes(let start, let end):
                let taken = min(end - start - offset, wanted - filled)
                _ = framing.withUnsafeBytes { memcpy(buffer + filled, $0.baseAddress! + start + offset, taken) }
                filled += taken
                offset += taken
                if start + offset == end { next() }
            case .file(let body):
                let read = body.read(into: buffer + filled, capacity: wanted - filled)
                if read == FileBody.paused { return filled > 0 ? filled : read }
                if read < 0 { return -1 }
                if read == 0, body.bytesRead < body.length { return -1 }  // shrank since the scan
                filled += read
                if body.bytesRead == body.length { next() }
            }
        }
        return filled
    }

    /// Moves to `position` in the body, as libcurl asks before sending it again.
    /// - Returns: false when the position lies outside the body.
    func seek(to position: Int64) -> Bool {
        guard position >= 0, position <= length else { return false }
        var left = position
        current = segments.count
        offset = 0
        for (index, segment) in segments.enumerated() {
            // A file wholly before the position keeps its place, and with it the hash of a whole read.
            if case .file(let body) = segment, left < body.length || body.bytesRead != body.length {
                _ = body.seek(to: min(left, body.length))
            }
            if current == segments.count, left < segment.length {
                current = index
                if case .bytes = segment { offset = Int(left) }
            }
            left = max(0, left - segment.length)
        }
        return true
    }

    private func next() {
        current += 1
        offset = 0
    }

    /// Ends the framing's current run of bytes as a segment.
    private func closeBytes() {
        if framing.count > pending { segments.append(.bytes(start: pending, end: framing.count)) }
        pending = framing.count
    }
}
