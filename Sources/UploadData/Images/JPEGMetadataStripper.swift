import Foundation

/// Removes a JPEG's metadata without decoding it, as `jpegtran -copy none` does: the compressed pixels are copied as
/// they are, so `--strip-metadata` alone costs a JPEG no quality and little time.
///
/// Kept: the JFIF header without its thumbnail, the colour profile (APP2 `ICC_PROFILE`), Adobe's segment (APP14,
/// which says how to read CMYK) and the orientation, in an EXIF block holding nothing else. Dropped: every other
/// application segment (EXIF with its GPS and thumbnail, XMP, IPTC, makers' data, multi-picture indexes), comments,
/// and whatever follows the end of the image (a multi-picture file's other pictures, phones' trailers).
///
/// Written by hand: libvips re-encodes whatever it writes, and no Debian library offers jpegtran's copy as an API.
struct JPEGMetadataStripper {
    /// Why a file was not stripped.
    enum Failure: Error {
        /// Not a JPEG read here (no start marker, a segment running past the end, no end marker): re-encode instead.
        case notJPEG
        /// Reading the original failed with this errno.
        case read(Int32)
        /// Writing the copy failed with this errno (a full disk).
        case write(Int32)
    }

    /// What a copy holds.
    struct Outcome: Equatable {
        /// The orientation tag kept (1 when there was none).
        var orientation = 1
        /// False when nothing worth stripping was found: the original may be sent as it is.
        var changed = false
    }

    private var input: Reader
    private var output: Writer
    private var outcome = Outcome()

    /// Copies the JPEG open on `source` into `destination` without its metadata.
    static func strip(from source: Int32, to destination: Int32) throws(Failure) -> Outcome {
        var stripper = JPEGMetadataStripper(input: Reader(fd: source), output: Writer(fd: destination))
        try stripper.run()
        return stripper.outcome
    }

    private mutating func run() throws(Failure) {
        guard try input.byte() == 0xFF, try input.byte() == 0xD8 else { throw .notJPEG }
        var jfif: [UInt8]?
        var kept: [(code: UInt8, payload: [UInt8])] = []
        while true {
            let code = try input.marker()
            if code == 0x01 {  // TEM: a marker alone, meaning nothing
                outcome.changed = true
                continue
            }
            guard code != 0xD9, code != 0x00, !(0xD0...0xD7).contains(code) else { throw .notJPEG }
            let payload = try input.payload()
            if code == 0xDA {
                output.append([0xFF, 0xD8])
                if let jfif { output.segment(0xE0, jfif) }
                if (2...8).contains(outcome.orientation) {
                    output.segment(0xE1, Self.exif(orientation: outcome.orientation))
                }
                for segment in kept { output.segment(segment.code, segment.payload) }
                output.segment(code, payload)
                break
            }
            switch code {
            case 0xE0:
                // JFIF's 14 bytes with a 0×0 thumbnail; a JFXX extension (a thumbnail only) goes.
                if jfif == nil, payload.count >= 14, payload.starts(with: Array("JFIF\0".utf8)) {
                    jfif = Array(payload[0..<12]) + [0, 0]
                    outcome.changed = outcome.changed || jfif != payload
                } else {
                    outcome.changed = true
                }
            case 0xE1:
                let found = Self.orientation(inEXIF: payload)
                if let found { outcome.orientation = found }
                // A block holding only the orientation (this one's copy) is written again as it was.
                outcome.changed = outcome.changed || found == nil || payload != Self.exif(orientation: found!)
            case 0xE2 where payload.starts(with: Array("ICC_PROFILE\0".utf8)),
                0xEE where payload.starts(with: Array("Adobe".utf8)):
                kept.append((code, payload))
            case 0xE2...0xEF, 0xFE: outcome.changed = true
            default: kept.append((code, payload))
            }
        }
        try copyScans()
        try output.flush()
        // A multi-picture file's other pictures, a phone's trailer.
        if try input.hasMore() { outcome.changed = true }
    }

    /// Copies the entropy-coded data and the segments between scans (a progressive JPEG's tables and scans) up to
    /// and including the end marker; application segments and comments found there go too.
    private mutating func copyScans() throws(Failure) {
        while true {
            try input.copyUntilMarker(into: &output)
            let code = try input.byte()
            switch code {
            case 0xFF:  // a fill byte before a marker
                input.unread(0xFF)
                outcome.changed = true
            case 0x00, 0xD0...0xD7: output.append([0xFF, code])  // a stuffed 0xFF byte, a restart marker
            case 0xD9:
                output.append([0xFF, 0xD9])
                return
            case 0x01: outcome.changed = true
            case 0xE0...0xEF, 0xFE:
                _ = try input.payload()
                outcome.changed = true
            default: output.segment(code, try input.payload())
            }
        }
    }

    /// The orientation tag (1–8) of an APP1 EXIF payload, or nil when it has none or is not EXIF. Every offset is
    /// checked against the payload, so a hostile block reads nothing outside it.
    static func orientation(inEXIF payload: [UInt8]) -> Int? {
        guard payload.count >= 14, payload.starts(with: Array("Exif\0\0".utf8)) else { return nil }
        let tiff = payload[6...]
        let little: Bool
        switch (tiff[6], tiff[7]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func number(at offset: Int, bytes: Int) -> Int? {
            guard offset >= 0, offset <= tiff.count - bytes else { return nil }
            let field = Array(tiff[(6 + offset)..<(6 + offset + bytes)])
            return (little ? field.reversed() : field).reduce(0) { $0 << 8 | Int($1) }
        }
        guard number(at: 2, bytes: 2) == 42, let ifd = number(at: 4, bytes: 4), let count = number(at: ifd, bytes: 2)
        else { return nil }
        for index in 0..<min(count, 1024) {
            let entry = ifd + 2 + index * 12
            guard let tag = number(at: entry, bytes: 2) else { return nil }
            if tag == 0x0112, number(at: entry + 2, bytes: 2) == 3, let value = number(at: entry + 8, bytes: 2) {
                return (1...8).contains(value) ? value : nil
            }
        }
        return nil
    }

    /// An APP1 payload holding only `orientation`: a big-endian TIFF header and one IFD of one entry.
    static func exif(orientation: Int) -> [UInt8] {
        Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] + [0, 1]
            + [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0] + [0, 0, 0, 0]
    }
}

extension JPEGMetadataStripper {
    /// The original, read in 64 KiB blocks.
    private struct Reader {
        let fd: Int32
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var start = 0
        var end = 0

        init(fd: Int32) {
            self.fd = fd
        }

        /// Reads the next block; false at the end of the file.
        mutating func fill() throws(Failure) -> Bool {
            var count: Int
            repeat {
                count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            } while count < 0 && errno == EINTR
            guard count >= 0 else { throw .read(errno) }
            (start, end) = (0, count)
            return count > 0
        }

        mutating func byte() throws(Failure) -> UInt8 {
            if start == end, try !fill() { throw .notJPEG }
            start += 1
            return buffer[start - 1]
        }

        /// True when bytes are left to read.
        mutating func hasMore() throws(Failure) -> Bool {
            if start < end { return true }
            return try fill()
        }

        /// Puts back the byte just read.
        mutating func unread(_ byte: UInt8) {
            start -= 1
            buffer[start] = byte
        }

        /// The code of the next marker: 0xFF, any fill bytes, then the code.
        mutating func marker() throws(Failure) -> UInt8 {
            guard try byte() == 0xFF else { throw .notJPEG }
            var code = try byte()
            while code == 0xFF { code = try byte() }
            return code
        }

        /// A segment's payload: its big-endian length (which counts itself), then that many bytes less two.
        mutating func payload() throws(Failure) -> [UInt8] {
            let length = Int(try byte()) << 8 | Int(try byte())
            guard length >= 2 else { throw .notJPEG }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(length - 2)
            while bytes.count < length - 2 {
                if start == end, try !fill() { throw .notJPEG }
                let taken = min(end - start, length - 2 - bytes.count)
                bytes += buffer[start..<(start + taken)]
                start += taken
            }
            return bytes
        }

        /// Copies bytes into `output` up to the next 0xFF, which is consumed.
        mutating func copyUntilMarker(into output: inout Writer) throws(Failure) {
            try output.flushIfFull()
            while true {
                if start == end, try !fill() { throw .notJPEG }
                if let found = buffer[start..<end].firstIndex(of: 0xFF) {
                    output.append(buffer[start..<found])
                    start = found + 1
                    return
                }
                output.append(buffer[start..<end])
                start = end
                try output.flushIfFull()
            }
        }
    }

    /// The copy, written in blocks of at least 64 KiB.
    private struct Writer {
        let fd: Int32
        var pending: [UInt8] = []

        init(fd: Int32) {
            self.fd = fd
            pending.reserveCapacity(1 << 17)
        }

        mutating func append(_ bytes: some Collection<UInt8>) {
            pending.append(contentsOf: bytes)
        }

        /// A marker segment: 0xFF, `code`, the length, `payload`.
        mutating func segment(_ code: UInt8, _ payload: [UInt8]) {
            let length = payload.count + 2
            append([0xFF, code, UInt8(length >> 8), UInt8(length & 0xFF)])
            append(payload)
        }

        mutating func flushIfFull() throws(Failure) {
            if pending.count >= 1 << 16 { try flush() }
        }

        mutating func flush() throws(Failure) {
            var offset = 0
            while offset < pending.count {
                let written = pending[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw .write(errno)
                }
                offset += written
            }
            pending.removeAll(keepingCapacity: true)
        }
    }
}
