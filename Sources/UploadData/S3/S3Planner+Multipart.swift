import Foundation
import UploadDomain

/// One S3 multipart upload: create, parts streamed from disk in parallel, complete.
///
/// The upload ID and each finished part are noted in the checkpoints, so an attempt that failed on what another
/// may cure (a reset, a 503 SlowDown), a run that was stopped and a run that was killed are continued from the
/// finished parts, not begun again. Any other failure aborts the upload, so S3 keeps no stray parts.
struct MultipartUpload {
    let planner: S3Planner
    let item: UploadItem
    let transport: any UploadTransport
    let probe: TransferProbe
    /// The `--concurrency` pool: the file's own slot carries one part; more parts run only on free slots.
    let slots: TransferSlots

    private var objectURL: String {
        planner.endpoint.objectURL(bucket: planner.location.bucket, key: planner.key(for: item))
    }

    private func url(_ query: [(String, String)]) -> String {
        planner.endpoint.objectURL(bucket: planner.location.bucket, key: planner.key(for: item), query: query)
    }

    func run() async throws -> TransferResponse {
        probe.expect(total: item.size)
        let key = planner.journalDestination(of: item)
        let algorithm = planner.checksumAlgorithm
        var earlier = planner.checkpoints?.unfinishedUploads(of: item, key: key) ?? []
        if let usable = earlier.firstIndex(where: {
            $0.continues(item, partSize: planner.partSize(for: item), checksumAlgorithm: algorithm.rawValue)
        }) {
            let upload = earlier.remove(at: usable)
            await abandon(earlier)
            do {
                let parts = try await unchanged(upload.parts, algorithm: algorithm)
                return try await finish(upload.uploadID, algorithm: algorithm, finished: parts)
            } catch let error as UploadError where error.httpStatus == 404 {
                // The upload expired or was aborted elsewhere (NoSuchUpload): start over.
                planner.checkpoints?.uploadEnded(upload.uploadID)
                probe.startOver()
            }
        } else {
            await abandon(earlier)
        }
        let headers = planner.objectHeaders(for: item)
        let create = planner.signed(
            "POST", url([("uploads", "")]), headers: headers + [("x-amz-checksum-algorithm", algorithm.rawValue)],
            payloadHash: SigV4Signer.emptyPayloadHash, body: .bytes([], contentType: headers[0].1))
        let created = try await transport.send(create, probe: TransferProbe())
        if let error = S3XML.error(created, file: item.relativePath, during: "starting the multipart upload") {
            throw error
        }
        guard let uploadID = S3XML.value(of: "UploadId", in: created.body) else {
            throw UploadError(.decodingFailed, file: item.relativePath, cause: "no UploadId in the multipart answer")
        }
        planner.checkpoints?.uploadBegan(
            uploadID, item: item, key: key, partSize: planner.partSize(for: item),
            checksumAlgorithm: algorithm.rawValue)
        return try await finish(uploadID, algorithm: algorithm, finished: [:])
    }

    /// Sends the parts not in `finished`, then completes; aborts on failure. Every part carries its checksum by the
    /// `algorithm` the upload was created with.
    private func finish(
        _ uploadID: String, algorithm: S3ChecksumAlgorithm, finished: [Int: FinishedPart]
    ) async throws -> TransferResponse {
        do {
            let parts = try await uploadParts(uploadID, algorithm: algorithm, finished: finished)
            let xml = Array(S3XML.completion(parts, algorithm: algorithm).utf8)
            let complete = planner.signed(
                "POST", url([("uploadId", uploadID)]), headers: [],
                payloadHash: SigV4Signer.payloadHash(of: xml), body: .bytes(xml, contentType: "application/xml"))
            let completed = try await transport.send(complete, probe: TransferProbe())
            if let error = S3XML.error(completed, file: item.relativePath, during: "completing the multipart upload") {
                throw error
            }
            planner.checkpoints?.uploadEnded(uploadID)
            return completed
        } catch let error as UploadError where !finished.isEmpty && error.httpStatus == 404 {
            throw error  // the caller starts a new upload
        } catch {
            // An interrupted upload is kept in the journal for the next run to continue.
            if planner.checkpoints != nil, Self.isInterruption(error) {
                probe.keepForNextRun()
                throw error
            }
            // Forgotten only once aborted: one the abort missed is aborted by the next run instead of left billed.
            if await abort(uploadID) { planner.checkpoints?.uploadEnded(uploadID) }
            throw error
        }
    }

    /// The finished parts whose bytes on disk still have the checksum they were sent with; the others are sent again.
    /// A file rewritten since with its size and mtime put back (`cp -p`, `rsync -t`, a restored copy) passes the
    /// journal's check, and its old parts would complete into an object of old bytes and new. Reading the parts
    /// again costs a fraction of sending them; one sent without a checksum is sent again. Parts are read side by side
    /// and each counts as carried once it passes, so the bar moves while a large file is read.
    private func unchanged(
        _ parts: [Int: FinishedPart], algorithm: S3ChecksumAlgorithm
    ) async throws -> [Int: FinishedPart] {
        let ranges = planner.partRanges(of: item)
        var waiting = parts.filter { (1...ranges.count).contains($0.key) && $0.value.checksum != nil }
            .sorted { $0.key < $1.key }[...]
        let width = max(1, min(planner.partConcurrency, ProcessInfo.processInfo.activeProcessorCount))
        return try await withThrowingTaskGroup(of: (Int, FinishedPart)?.self) { group in
            func readNext() {
                guard let (number, part) = waiting.popFirst() else { return }
                group.addTask {
                    // A stop does not wait for the rest of a large file to be read.
                    try Task.checkCancellation()
                    let (offset, length) = ranges[number - 1]
                    let digest = try await PayloadDigest.computed(
                        item, offset: offset, length: length, algorithm: algorithm, signed: false)
                    guard digest.base64 == part.checksum else { return nil }
                    probe.carry(length)
                    return (number, part)
                }
            }
            for _ in 0..<width { readNext() }
            var kept: [Int: FinishedPart] = [:]
            while let result = try await group.next() {
                if let (number, part) = result { kept[number] = part }
                readNext()
            }
            return kept
        }
    }

    static func isInterruption(_ error: any Error) -> Bool {
        (error as? UploadError)?.code == .cancelled || error is CancellationError
    }

    private func uploadParts(
        _ uploadID: String, algorithm: S3ChecksumAlgorithm, finished: [Int: FinishedPart]
    ) async throws -> [(number: Int, part: FinishedPart)] {
        let ranges = planner.partRanges(of: item)
        let count = ranges.count
        let earlier = finished.filter { (1...count).contains($0.key) }
        var extraSlots = 0
        defer { for _ in 0..<extraSlots { slots.release() } }
        return try await withThrowingTaskGroup(of: (Int, FinishedPart).self) { group in
            var next = 1
            var inFlight = 0
            var done = earlier.map { (number: $0.key, part: $0.value) }
            /// Starts parts while the file's own slot or a free one allows; gives back slots it no longer needs.
            func fill() {
                while next <= count, earlier[next] != nil { next += 1 }
                while next <= count, inFlight < planner.partConcurrency {
                    if inFlight >= 1 + extraSlots {
                        guard slots.tryAcquire() else { break }
                        extraSlots += 1
                    }
                    let number = next
                    let range = ranges[number - 1]
                    group.addTask {
                        (number, try await uploadPart(number, range, uploadID: uploadID, algorithm: algorithm))
                    }
                    next += 1
                    while next <= count, earlier[next] != nil { next += 1 }
                    inFlight += 1
                }
                while extraSlots > max(0, inFlight - 1) {
                    extraSlots -= 1
                    slots.release()
                }
            }
            fill()
            while let (number, part) = try await group.next() {
                done.append((number, part))
                planner.checkpoints?.partFinished(uploadID: uploadID, number: number, part: part)
                inFlight -= 1
                fill()
            }
            return done.sorted { $0.number < $1.number }
        }
    }

    /// Sends one part; one that fails on what another attempt may cure (a reset, a 503 SlowDown) is sent again
    /// after the retry policy's wait, while the other parts go on.
    private func uploadPart(
        _ number: Int, _ range: (offset: Int64, length: Int64), uploadID: String, algorithm: S3ChecksumAlgorithm
    ) async throws -> FinishedPart {
        let (offset, length) = range
        let digest = try await PayloadDigest.computed(
            item, offset: offset, length: length, algorithm: algorithm, signed: planner.signsPayload)
        // One probe for every attempt: a new attempt's count replaces the failed one's in the file's total.
        let partProbe = TransferProbe(partOf: probe)
        var attempt = 1
        while true {
            do {
                return try await sendPart(
                    number, range, uploadID: uploadID, digest: (digest, algorithm), probe: partProbe)
            } catch let error as UploadError {
                let unit = Double.random(in: 0...1)
                guard let delay = planner.partRetries.delay(after: error, attempt: attempt, unit: unit) else {
                    throw error
                }
                partProbe.report(sent: 0, total: length)
                probe.partResent()
                try await Task.sleep(for: delay)
                attempt += 1
            }
        }
    }

    private func sendPart(
        _ number: Int, _ range: (offset: Int64, length: Int64), uploadID: String,
        digest: (PayloadDigest, algorithm: S3ChecksumAlgorithm), probe partProbe: TransferProbe
    ) async throws -> FinishedPart {
        let (digest, algorithm) = digest
        let request = planner.signed(
            "PUT", url([("partNumber", String(number)), ("uploadId", uploadID)]),
            headers: S3Planner.checksumHeaders(digest, algorithm), payloadHash: digest.payloadHash,
            body: .fileRange(item, offset: range.offset, length: range.length, contentType: nil))
        let response = try await transport.send(request, probe: partProbe)
        if let error = S3XML.error(response, file: item.relativePath, during: "uploading part \(number)") {
            throw error
        }
        guard let etag = response.headers["etag"] else {
            throw UploadError(
                .invalidResponse, file: item.relativePath, cause: "part \(number) came back without an ETag")
        }
        return FinishedPart(etag: etag, checksum: digest.base64)
    }

    /// Aborts and forgets every upload earlier runs kept for the file.
    func abandonEarlier() async {
        await abandon(planner.checkpoints?.unfinishedUploads(of: item, key: planner.journalDestination(of: item)) ?? [])
    }

    /// Aborts and forgets uploads begun for other bytes, another part size or another checksum algorithm: they can
    /// never complete this file, and S3 keeps (and bills) their parts until aborted. One already gone is forgotten.
    private func abandon(_ uploads: [UnfinishedUpload]) async {
        for upload in uploads where await abort(upload.uploadID) {
            planner.checkpoints?.uploadEnded(upload.uploadID)
        }
    }

    /// Aborts the upload; true once S3 has no such upload (aborted now, or gone already). Runs outside the
    /// (possibly cancelled) upload task, so the abort itself is not cancelled.
    private func abort(_ uploadID: String) async -> Bool {
        let (planner, transport, key) = (planner, transport, planner.key(for: item))
        return await Task { await planner.abort(uploadID, key: key, via: transport) }.value == nil
    }
}
