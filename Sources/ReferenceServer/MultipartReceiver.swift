import Crypto
import Foundation
import NIOCore

/// A file part that has been fully received and renamed into place.
struct ReceivedFile: Sendable {
    /// Multipart field name.
    var field: String
    /// Filename as sent by the client.
    var filename: String
    /// The part's `Content-Type`.
    var contentType: String
    /// Where the bytes were stored.
    var destination: StoragePath
}

/// Feeds a `multipart/form-data` body through ``MultipartStreamParser``, writing each file part
/// straight to disk as its bytes arrive and collecting the small non-file fields.
///
/// Memory stays bounded by the network chunk size whatever the upload size: file bytes go from the
/// parser's callback into a ``FileSink`` immediately (or, for a replayed request, only into a hash).
/// Either way it adds every part to ``parts``, the request's fingerprint content.
final class MultipartReceiver {
    /// Cap on a single non-file field; fields are held in memory, files never are.
    static let maximumFieldBytes = 64 * 1024

    private enum Part {
        case file(FileSink, ReceivedFile)
        /// A file part of a request that stores nothing: its content is only hashed.
        case unstoredFile(SHA256, ReceivedFile)
        case field(name: String, value: ByteBuffer)
    }

    private let parser: MultipartStreamParser
    private let baseDirectory: String
    private let rootRelativeBase: String
    private let storesFiles: Bool
    private var headers: [(name: String, value: String)] = []
    private var current: Part?
    private var partsCompleted = 0
    private let corrupts: () -> Bool

    /// Files stored so far, in arrival order.
    private(set) var files: [ReceivedFile] = []
    /// Non-file fields; a repeated name keeps the last value.
    private(set) var fields: [String: String] = [:]
    /// Every completed part in order, for the request's ``RequestFingerprint``.
    private(set) var parts = RequestFingerprint.Parts()

    /// - Parameters:
    ///   - boundary: the boundary from the request's `Content-Type`.
    ///   - baseDirectory: absolute dataset folder every file must stay inside.
    ///   - rootRelativeBase: that folder relative to the server root (`datasets/<id>`).
    ///   - storesFiles: false to parse and fingerprint the body without writing anything (a
    ///     replayed request); ``files`` then stays empty.
    ///   - corrupts: asked once per stored file whether to store it with a wrong byte (`--corrupt-rate`).
    init(
        boundary: String, baseDirectory: String, rootRelativeBase: String, storesFiles: Bool = true,
        corrupts: @escaping () -> Bool = { false }
    ) {
        self.corrupts = corrupts
        self.parser = MultipartStreamParser(boundary: boundary)
        self.baseDirectory = baseDirectory
        self.rootRelativeBase = rootRelativeBase
        self.storesFiles = storesFiles
        parser.onHeader = { [unowned self] name, value in
            self.headers.append((name.lowercased(), value))
        }
        parser.onBody = { [unowned self] buffer in
            try self.append(buffer)
        }
        parser.onPartComplete = { [unowned self] in
            try self.completePart()
        }
    }

    /// Parses one chunk of the request body.
    func consume(_ chunk: ByteBuffer) throws {
        try parser.execute(chunk)
    }

    /// Checks that the body ended with the closing boundary.
    func finish() throws {
        guard parser.isComplete else {
            throw ReferenceServerError(.malformedMultipart, "multipart body ended before its closing boundary")
        }
    }

    /// Deletes the temp file of a part that was still being received.
    func abort() {
        if case .file(let sink, _) = current { sink.abort() }
        current = nil
    }

    private func append(_ buffer: ByteBuffer) throws {
        if current == nil { current = try beginPart() }
        switch current {
        case .file(let sink, _):
            try sink.write(buffer)
        case .unstoredFile(var hasher, let received):
            current = nil  // as for fields: a shared hash context would be copied per chunk
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            current = .unstoredFile(hasher, received)
        case .field(let name, var value):
            guard value.readableBytes + buffer.readableBytes <= Self.maximumFieldBytes else {
                throw ReferenceServerError(.fieldTooLarge, "form field '\(name)' exceeds \(Self.maximumFieldBytes) bytes")
            }
            var buffer = buffer
            current = nil  // drop the reference first so the append does not copy the storage
            value.writeBuffer(&buffer)
            current = .field(name: name, value: value)
        case nil:
            break
        }
    }

    private func completePart() throws {
        // A part with an empty body never triggered `onBody`, so it may not be open yet.
        if current == nil { current = try beginPart() }
        switch current {
        case .file(let sink, let received):
            let sha256 = try sink.commit()
            files.append(received)
            parts.addFile(received, contentSHA256: sha256)
        case .unstoredFile(let hasher, let received):
            parts.addFile(received, contentSHA256: hasher.finalize().hexString)
        case .field(let name, let value):
            fields[name] = String(buffer: value)
            parts.addField(name: name, value: value)
        case nil:
            break
        }
        current = nil
        headers = []
        partsCompleted += 1
    }

    /// Decides from the part headers whether this is a file or a field, and opens its sink.
    private func beginPart() throws -> Part {
        let disposition = headers.first { $0.name == "content-disposition" }
            .map { HeaderValue(parsing: $0.value) }
        let name = disposition?.parameters["name"] ?? ""
        guard let filename = disposition?.parameters["filename"] else {
            return .field(name: name, value: ByteBuffer())
        }
        let contentType = headers.first { $0.name == "content-type" }?.value.trimmingWhitespace()
        // Browsers send `filename=""` for an empty file input, and a name like `../..` has nothing
        // left after sanitising; store those under a made-up name rather than failing the form.
        let usableName = StoragePath.hasUsableComponents(filename) ? filename : "unnamed-\(partsCompleted + 1)"
        let destination = try StoragePath(
            sanitising: usableName, baseDirectory: baseDirectory, rootRelativeBase: rootRelativeBase)
        let received = ReceivedFile(
            field: name, filename: filename,
            contentType: (contentType?.isEmpty ?? true) ? "application/octet-stream" : contentType!,
            destination: destination)
        guard storesFiles else { return .unstoredFile(SHA256(), received) }
        return .file(try FileSink(destination: destination, corrupt: corrupts()), received)
    }
}

extension RequestFingerprint.Parts {
    /// Appends a file part as the client described it (the filename as sent, not as stored).
    fileprivate mutating func addFile(_ file: ReceivedFile, contentSHA256: String) {
        addFile(name: file.field, filename: file.filename, contentType: file.contentType, contentSHA256: contentSHA256)
    }
}
