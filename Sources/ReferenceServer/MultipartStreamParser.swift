import Foundation
import NIOCore

/// Incremental `multipart/form-data` parser (RFC 7578 / RFC 2046) with multipart-kit's callback
/// shape: `onHeader` per part header, `onBody` per run of body bytes, `onPartComplete` per part.
///
/// Why not multipart-kit's `MultipartParser`: it inspects the body one byte at a time through
/// closures, which in the debug builds used for tests and demos is far too slow for a 1 GiB
/// upload (docs/reference-server.md). This parser finds boundaries with `memchr`/`memcmp`, so body bytes
/// move at memory speed. Tests check it against multipart-kit's parser on randomised inputs.
///
/// Memory is bounded: besides the chunk being parsed it only retains a possible partial boundary
/// (under 80 bytes) or an incomplete header block (capped at ``maximumHeaderBytes``).
final class MultipartStreamParser {
    /// Largest header block accepted for one part.
    static let maximumHeaderBytes = 16 * 1024

    private enum State {
        /// Skipping everything before the first boundary.
        case preamble
        /// Just read a delimiter; the next bytes say "another part" (CRLF) or "done" (`--`).
        case afterDelimiter
        /// Reading a part's header block, which starts with the CRLF ending the delimiter line.
        case headers
        /// Streaming a part's content until the next delimiter.
        case body
        /// After the closing delimiter; anything further is ignored.
        case epilogue
    }

    /// Called for each header of a part, before any of its body bytes.
    var onHeader: (String, String) throws -> Void = { _, _ in }
    /// Called with consecutive runs of a part's content.
    var onBody: (ByteBuffer) throws -> Void = { _ in }
    /// Called when a part's closing delimiter has been seen.
    var onPartComplete: () throws -> Void = {}

    /// `CRLF--boundary`: every delimiter, including the first (see `pending`'s initial value).
    private let delimiter: [UInt8]
    private static let headerTerminator: [UInt8] = Array("\r\n\r\n".utf8)
    private var state = State.preamble
    /// Unconsumed bytes. Starts with a CRLF so the first boundary, which may open the body without
    /// one, matches the same `CRLF--boundary` pattern as all the others.
    private var pending = ByteBuffer(bytes: [13, 10])

    /// True once the closing `--boundary--` has been read.
    var isComplete: Bool {
        if case .epilogue = state { return true }
        return false
    }

    /// Creates a parser for `boundary` (the `Content-Type` parameter, without the leading `--`).
    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Parses the next chunk of the body; callbacks fire synchronously and their errors propagate.
    func execute(_ chunk: ByteBuffer) throws {
        if case .epilogue = state { return }
        var chunk = chunk
        pending.writeBuffer(&chunk)
        while try step() {}
        // Reclaim consumed space so `pending` does not grow with the upload.
        pending.discardReadBytes()
    }

    /// Runs one state transition; returns false when more input is needed.
    private func step() throws -> Bool {
        switch state {
        case .preamble:
            let (match, keepFrom) = Self.search(delimiter, in: pending)
            pending.moveReaderIndex(forwardBy: match ?? keepFrom)
            guard match != nil else { return false }
            pending.moveReaderIndex(forwardBy: delimiter.count)
            state = .afterDelimiter
            return true

        case .afterDelimiter:
            // RFC 2046 allows linear whitespace after the boundary before the line break.
            while let byte = pending.getInteger(at: pending.readerIndex, as: UInt8.self), byte == 0x20 || byte == 0x09 {
                pending.moveReaderIndex(forwardBy: 1)
            }
            guard let pair = pending.getBytes(at: pending.readerIndex, length: 2) else { return false }
            if pair == [0x2D, 0x2D] {  // "--": closing delimiter
                state = .epilogue
                pending.clear()
                return false
            }
            guard pair == [13, 10] else {
                throw ReferenceServerError(.malformedMultipart, "malformed multipart boundary line")
            }
            state = .headers  // the CRLF stays: it starts the header block
            return true

        case .headers:
            let (match, _) = Self.search(Self.headerTerminator, in: pending, allowPartial: false)
            guard let end = match else {
                if pending.readableBytes > Self.maximumHeaderBytes {
                    throw ReferenceServerError(.malformedMultipart, "multipart part headers too large")
                }
                return false
            }
            // Block is `CRLF line CRLF line ... CRLF CRLF`; an empty block is just `CRLF CRLF`.
            let block = pending.readSlice(length: end + Self.headerTerminator.count)!
            try emitHeaders(block)
            state = .body
            return true

        case .body:
            let (match, keepFrom) = Self.search(delimiter, in: pending)
            let contentLength = match ?? keepFrom
            if contentLength > 0 {
                try onBody(pending.readSlice(length: contentLength)!)
            }
            guard match != nil else { return false }
            pending.moveReaderIndex(forwardBy: delimiter.count)
            try onPartComplete()
            state = .afterDelimiter
            return true

        case .epilogue:
            return false
        }
    }

    private func emitHeaders(_ block: ByteBuffer) throws {
        let text = String(buffer: block)
        var headers: [(String, String)] = []
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            if line.first == " " || line.first == "\t", let last = headers.popLast() {
                // Obsolete header folding: continuation of the previous value.
                headers.append((last.0, last.1 + " " + String(line).trimmingWhitespace()))
                continue
            }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw ReferenceServerError(.malformedMultipart, "malformed multipart part header")
            }
            let name = String(line[..<colon]).trimmingWhitespace()
            let value = String(line[line.index(after: colon)...]).trimmingWhitespace()
            headers.append((name, value))
        }
        for (name, value) in headers {
            try onHeader(name, value)
        }
    }

    /// Finds `needle` in the readable bytes of `buffer`.
    ///
    /// - Returns: `match`, the offset of the first full occurrence, and `keepFrom`, the offset of a
    ///   trailing partial occurrence that must be kept until more data arrives (the readable byte
    ///   count when there is none, or when `allowPartial` is false).
    static func search(_ needle: [UInt8], in buffer: ByteBuffer, allowPartial: Bool = true) -> (match: Int?, keepFrom: Int) {
        buffer.withUnsafeReadableBytes { haystack in
            needle.withUnsafeBytes { pattern in
                let count = haystack.count
                guard count > 0, let base = haystack.baseAddress, let first = pattern.first else {
                    return (nil, count)
                }
                var start = 0
                while start < count, let found = memchr(base + start, Int32(first), count - start) {
                    let index = base.distance(to: UnsafeRawPointer(found))
                    let available = min(count - index, pattern.count)
                    if memcmp(base + index, pattern.baseAddress!, available) == 0 {
                        if available == pattern.count { return (index, index) }
                        return (nil, allowPartial ? index : count)
                    }
                    start = index + 1
                }
                return (nil, count)
            }
        }
    }
}
