import Foundation
import UploadDomain

extension S3Planner {
    /// Settles the multipart uploads earlier runs kept in this bucket at this endpoint for files this run does not
    /// send (those it sends are continued or aborted by their own upload). One whose file is gone (deleted, renamed)
    /// can never be continued, and S3 keeps and bills its parts until it is aborted: it is aborted and forgotten. One
    /// whose file is there is left for a run that sends it.
    /// - Returns: The lines to say: one for each upload aborted (or that could not be), one counting those left.
    public func settleKeptUploads(sending items: [UploadItem], via transport: any UploadTransport) async -> [String] {
        guard let checkpoints else { return [] }
        let kept = checkpoints.keptUploads()
        guard !kept.isEmpty else { return [] }
        let sent = Set(items.map { SentFile(path: $0.path, key: journalDestination(of: $0)) })
        var notes: [String] = []
        var left = 0
        for upload in kept where !sent.contains(SentFile(path: upload.path, key: upload.key)) {
            guard let key = objectKey(noted: upload.key) else { continue }
            guard access(upload.path, F_OK) != 0, errno == ENOENT else {
                left += 1
                continue
            }
            let name = Sanitizer.displayName(upload.path)
            if let refusal = await abort(upload.uploadID, key: key, via: transport) {
                notes.append(
                    "the multipart upload kept for \(name) could not be aborted (\(refusal)); the next run tries again")
            } else {
                checkpoints.uploadEnded(upload.uploadID)
                notes.append(
                    "aborted the multipart upload kept for \(name): the file is gone, so it can never be continued")
            }
        }
        if left == 1 {
            notes.append(
                "1 multipart upload is kept for a file this run does not send to its key: a run that does continues it")
        } else if left > 1 {
            notes.append(
                "\(left) multipart uploads are kept for files this run does not send to their keys: a run that does "
                    + "continues them")
        }
        return notes
    }

    private struct SentFile: Hashable {
        let path: String
        let key: String
    }

    /// The object key of an upload noted under `noted` (`journalDestination`), or nil when it was noted for another
    /// bucket or endpoint: this run holds only its own bucket's lock, and its credentials may be for no other.
    func objectKey(noted: String) -> String? {
        let head = "s3://\(location.bucket)/"
        let tail = endpoint.customURL.map { " at " + Redactor.journalURL($0) } ?? ""
        guard noted.hasPrefix(head), noted.hasSuffix(tail), noted.utf8.count > head.utf8.count + tail.utf8.count
        else { return nil }
        let key = String(noted.dropFirst(head.count).dropLast(tail.count))
        // Noted without a custom endpoint, a key reads on to its end; one ending " at <URL>" was noted with one.
        if tail.isEmpty, let at = key.range(of: " at ", options: .backwards), key[at.upperBound...].contains("://") {
            return nil
        }
        return key
    }

    /// Aborts the upload of `key`; nil once S3 has no such upload (aborted now, or gone already), else why not.
    func abort(_ uploadID: String, key: String, via transport: any UploadTransport) async -> String? {
        let url = endpoint.objectURL(bucket: location.bucket, key: key, query: [("uploadId", uploadID)])
        let request = signed(
            "DELETE", url, headers: [], payloadHash: SigV4Signer.emptyPayloadHash,
            body: .bytes([], contentType: "application/xml"))
        do {
            let response = try await transport.send(request, probe: TransferProbe())
            if response.isSuccess || response.status == 404 { return nil }
            return "HTTP \(response.status)"
        } catch {
            return "\(error)"
        }
    }
}
