import CCurl
import Crypto
import Foundation
import Synchronization
import UploadDomain

/// One request's libcurl state: the easy handle, its body (multipart, a file, or bytes), and what came back.
///
/// `@unchecked Sendable`: every field but `cancelRequested` is touched only on the curl thread it was posted to
/// (the caller creates it, then hands it over through that loop's locked command queue).
final class CurlTransfer: @unchecked Sendable {
    static let responseCap = 1 << 20
    /// A body of this many file bytes or more is read and sent `largeBodyBuffer` bytes at a time, not libcurl's
    /// 64 KiB: an eighth of the read callbacks and send calls, the sending thread being what limits one large
    /// upload on a fast link (2 GiB to nginx on loopback, docs/engine.md). Smaller bodies keep the default, so
    /// many transfers in flight hold little memory.
    static let largeBody: Int64 = 8 << 20
    static let largeBodyBuffer = 512 << 10

    let request: TransferRequest
    let probe: TransferProbe
    let options: CurlEngine.Options
    /// The transfer's share of the engine's `--bwlimit`; nil for a request made outside an engine.
    let throttle: TransferThrottle?
    /// Whether the request may go over HTTP/2 with TLS, where a streamed body is read a frame-fitting chunk at a
    /// time (`FileBody.frameFittingRead`). Once the connection is known (`connectionChosen`), only one that agreed
    /// on HTTP/2 keeps those reads.
    let mayUseHTTP2OverTLS: Bool
    let cancelRequested = Atomic<Bool>(false)
    var continuation: CheckedContinuation<TransferResponse, any Error>?

    private(set) var easy: UnsafeMutableRawPointer?
    /// The connection's local and remote ports, once libcurl has chosen it.
    private var connectionPorts: (local: Int32, remote: Int32)?
    private var socketHint: Int32 = -1
    /// The peer has acknowledged the whole body (or the kernel cannot say): the written count is the sent one.
    private var bodyAcknowledged = false
    /// The most the bar has shown of this attempt.
    private var shownSent: Int64 = 0
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The files streamed into the body, in the request's order (one for a PUT, one per multipart file part).
    private(set) var fileBodies: [FileBody] = []
    /// A small request's whole body, sent with its headers; nil for a streamed one.
    private(set) var inline: InlineBody?
    /// A streamed multipart body.
    private(set) var stream: MultipartStream?
    /// Descriptors `openFiles` kept for the bodies, by file index; -1 where the body opens the file itself.
    var openedFiles: [Int32] = []
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var body: [UInt8] = []
    /// Digests of the response body, for a read-back (`request.digestsResponseBody`); nil for other requests,
    /// which need not allocate them.
    private var bodyDigests: (sha256: SHA256, md5: Insecure.MD5)?
    private var bodyBytes: Int64 = 0
    private var headers: [String: String] = [:]
    private var stallWatch: StallWatch
    private var paused = false
    /// What stopped moving, when the watch aborted the transfer.
    private var stopped: StallWatch.Stop?
    /// Bytes of the final answer (its headers and body) received so far: an interim 100 Continue is none.
    private var answerBytes: Int64 = 0

    init(
        request: TransferRequest, probe: TransferProbe, options: CurlEngine.Options, limiter: BandwidthLimiter? = nil,
        mayUseHTTP2OverTLS: Bool = false
    ) {
        self.request = request
        self.probe = probe
        self.options = options
        self.mayUseHTTP2OverTLS = mayUseHTTP2OverTLS
        throttle = limiter.map(TransferThrottle.init)
        // Nanoseconds, at most a year: a larger limit would overflow them, and is forever anyway.
        func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(min(max(0, seconds), 31_536_000) * 1e9) }
        stallWatch = StallWatch(
            limit: nanoseconds(options.stallTimeout), answerLimit: nanoseconds(options.responseTimeout))
        errorBuffer.initialize(to: 0)
        if request.digestsResponseBody { bodyDigests = (SHA256(), Insecure.MD5()) }
    }

    deinit {
        release()
        errorBuffer.deallocate()
    }

    /// Configures an easy handle: `handle`, one a finished transfer left reset (`releaseForReuse`), else a new one.
    /// - Throws: `UploadError` when a file cannot be opened or libcurl refuses an option.
    func prepare(reusing handle: UnsafeMutableRawPointer? = nil) throws(UploadError) {
        easy = handle  // owned from here: `release` frees it should preparing fail
        try openFiles()
        stallWatch.restart(at: StallWatch.now())
        guard let easy = easy ?? ccurl_easy_init() else {
            throw UploadError(.requestFailed, cause: "curl_easy_init failed")
        }
        self.easy = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_URL, request.url)
        // The path as given, dot segments too: an S3 key `x/../y` is signed as such, and a presigned URL is signed
        // over its literal path; collapsed, the first would go to another key (or bucket) and the second be refused.
        try set(CURLOPT_PATH_AS_IS, 1)
        try set(CURLOPT_PRIVATE, pointer: me)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMilliseconds)
        try set(CURLOPT_USERAGENT, options.userAgent)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_HTTP_VERSION, options.httpVersion.curlValue)
        if options.httpVersion.waitsForMultiplexing(to: request.url) { try set(CURLOPT_PIPEWAIT, 1) }
        if let share = ccurl_shared_tls_and_dns() { try set(CURLOPT_SHARE, pointer: share) }
        if options.insecure {
            try set(CURLOPT_SSL_VERIFYPEER, 0)
            try set(CURLOPT_SSL_VERIFYHOST, 0)
        }
        try setTrustAndProxy()
        if options.maxSendSpeed > 0 {
            try check(ccurl_easy_setopt_off(easy, CURLOPT_MAX_SEND_SPEED_LARGE, curl_off_t(options.maxSendSpeed)))
        }
        try check(ccurl_easy_track_sockets(easy))
        try set(CURLOPT_NOPROGRESS, 0)
        try check(ccurl_easy_setopt_xferinfo(easy, CurlCallbacks.progress))
        try set(CURLOPT_XFERINFODATA, pointer: me)
        try check(ccurl_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION, CurlCallbacks.write))
        try set(CURLOPT_WRITEDATA, pointer: me)
        try check(ccurl_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION, CurlCallbacks.header))
        try set(CURLOPT_HEADERDATA, pointer: me)

        // An empty Expect: stops libcurl waiting up to a second for a 100-continue many servers never send.
        var lines = ["Expect:"]
        if let token = request.bearerToken { lines.append("Authorization: Bearer \(token)") }

        if try !prepareInline(&lines) { try prepareBody(&lines) }
        if mayUseHTTP2OverTLS, stream != nil || !fileBodies.isEmpty { limitReads(to: FileBody.frameFittingRead) }
        // An older libcurl lacks the option: the reads then stay frame-fitting, whatever the protocol, and what the
        // kernel holds unsent counts as sent.
        if ccurl_easy_setopt_prereq(easy, CurlCallbacks.prereq) == CURLE_OK {
            try set(CURLOPT_PREREQDATA, pointer: me)
        }
        if fileBodies.reduce(0, { $0 + $1.length }) >= Self.largeBody {
            try set(CURLOPT_UPLOAD_BUFFERSIZE, Self.largeBodyBuffer)
        }
        let multipart = if case .multipart = request.body { true } else { false }
        for line in Self.merged(own: lines, user: request.headers, multipart: multipart) {
            headerList = line.withCString { ccurl_slist_append(headerList, $0) }
        }
        try check(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
    }

    /// The user's headers (`-H`) and ours, a user's in place of ours of the same name, as curl does, so a server
    /// never gets two `Authorization` or `Content-Type` lines to choose from. A multipart body keeps its own
    /// `Content-Type`: its boundary is what the parts are cut by.
    static func merged(own: [String], user: [HTTPHeader], multipart: Bool) -> [String] {
        guard !user.isEmpty else { return own }
        let userLines = user.filter { !(multipart && HTTPHeader.sameName($0.name[...], "content-type")) }
            .map { "\($0.name): \($0.value)" }
        let ownLines = own.filter { line in
            let name = line[..<(line.utf8.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex)]
            return (multipart && HTTPHeader.sameName(name, "content-type"))
                || !user.contains { HTTPHeader.sameName(name, $0.name) }
        }
        return userLines + ownLines
    }

    /// A small request's body read whole and given to libcurl as `POSTFIELDS`, which it sends in the same write as
    /// the headers (`InlineBody`); false for a request streamed instead.
    private func prepareInline(_ lines: inout [String]) throws(UploadError) -> Bool {
        // Under a bandwidth cap every byte goes through the limiter's reads.
        guard options.maxSendSpeed == 0, throttle?.limiter.isCapped != true, InlineBody.fits(request),
            let body = try InlineBody(request, descriptor: takeOpened)
        else { return false }
        inline = body
        lines.append("Content-Type: \(body.contentType)")
        try check(ccurl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        try set(CURLOPT_POSTFIELDS, pointer: body.baseAddress)
        if request.method != .post { try set(CURLOPT_CUSTOMREQUEST, request.method.rawValue) }
        return true
    }

    /// A body streamed from disk through the read callbacks (multipart or a file), an in-memory one, or none.
    private func prepareBody(_ lines: inout [String]) throws(UploadError) {
        guard let easy else { return }
        switch request.body {
        case .multipart(let fields, let fileField, let files):
            try streamMultipart(fields: fields, fileField: fileField, files: files, headers: &lines)
        case .file(let item, let contentType):
            try streamFile(FileBody(item, descriptor: takeOpened(0)))
            lines.append("Content-Type: \(contentType)")
        case .fileRange(let item, let offset, let length, let contentType):
            try streamFile(FileBody(item, start: offset, length: length, descriptor: takeOpened(0)))
            if let contentType { lines.append("Content-Type: \(contentType)") }
        case .bytes(let bytes, let contentType):
            lines.append("Content-Type: \(contentType)")
            try check(ccurl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
            // COPYPOSTFIELDS copies the bytes, so the array need not outlive this call.
            var copy = bytes + [0]  // a non-empty buffer even for an empty body
            try check(
                copy.withUnsafeMutableBytes { ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) })
            if request.method != .post { try set(CURLOPT_CUSTOMREQUEST, request.method.rawValue) }
        case .none:
            switch request.method {
            case .get: break
            case .head: try set(CURLOPT_NOBODY, 1)
            default: try set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            }
        }
    }

    /// CA certificates, client identity and proxy: one place, so every request of a run (uploads, presign, token
    /// refresh, S3) meets the same trust.
    private func setTrustAndProxy() throws(UploadError) {
        if let caFile = options.trust.caFile { try set(CURLOPT_CAINFO, caFile.path) }
        if let caPath = options.trust.caPath { try set(CURLOPT_CAPATH, caPath.path) }
        if let certificate = options.clientCertificate {
            try set(CURLOPT_SSLCERT, certificate)
            try set(CURLOPT_SSLCERTTYPE, "PEM")
        }
        if let key = options.clientKey {
            try set(CURLOPT_SSLKEY, key)
            try set(CURLOPT_SSLKEYTYPE, "PEM")
        }
        if let proxy = options.proxy { try set(CURLOPT_PROXY, proxy) }
        if let noProxy = options.noProxy { try set(CURLOPT_NOPROXY, noProxy) }
    }

    private func streamFile(_ file: FileBody) throws(UploadError) {
        file.throttle = throttle
        fileBodies = [file]
        let data = Unmanaged.passUnretained(file).toOpaque()
        try set(CURLOPT_UPLOAD, 1)
        try check(ccurl_easy_setopt_read(easy, CurlCallbacks.read))
        try set(CURLOPT_READDATA, pointer: data)
        try check(ccurl_easy_setopt_seek(easy, CurlCallbacks.seek))
        try set(CURLOPT_SEEKDATA, pointer: data)
        try check(ccurl_easy_setopt_off(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(file.length)))
        if request.method == .post { try set(CURLOPT_CUSTOMREQUEST, "POST") }
    }

    /// A multipart body framed here (`MultipartStream`), not by libcurl's MIME API, whose reader fills libcurl's
    /// whole buffer whatever a part returns (so its reads could not be cut to fit HTTP/2 frames), and whose boundary
    /// cost each curl thread the set-up of OpenSSL's random generator before the first request.
    private func streamMultipart(
        fields: [FormField], fileField: String, files: [UploadItem], headers lines: inout [String]
    ) throws(UploadError) {
        fileBodies = files.indices.map { FileBody(files[$0], descriptor: takeOpened($0)) }
        for file in fileBodies { file.throttle = throttle }
        let stream = MultipartStream(
            fields: fields, fileField: fileField, files: files, bodies: fileBodies, boundary: MultipartBoundary.make())
        self.stream = stream
        lines.append("Content-Type: \(stream.contentType)")
        let data = Unmanaged.passUnretained(stream).toOpaque()
        try set(CURLOPT_POST, 1)
        try check(ccurl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(stream.length)))
        try check(ccurl_easy_setopt_read(easy, CurlCallbacks.readStream))
        try set(CURLOPT_READDATA, pointer: data)
        try check(ccurl_easy_setopt_seek(easy, CurlCallbacks.seekStream))
        try set(CURLOPT_SEEKDATA, pointer: data)
    }

    /// Notes the connection's ports, by which its socket is found. Over a connection that did not agree on HTTP/2
    /// (a server offering HTTP/1.1 only), the body is read in libcurl's whole buffer again: cut to frames there, it
    /// only cost read calls. On the curl thread, from `CurlCallbacks.prereq`.
    func connectionChosen(ports: (local: Int32, remote: Int32)) {
        guard let easy else { return }
        connectionPorts = ports
        guard mayUseHTTP2OverTLS else { return }
        limitReads(to: ccurl_tls_alpn_is_h2(easy) == 0 ? Int.max : FileBody.frameFittingRead)
    }

    /// The most one read of the body hands libcurl: the stream's, or else each file's.
    private func limitReads(to limit: Int) {
        if let stream {
            stream.readLimit = limit
        } else {
            for file in fileBodies { file.readLimit = limit }
        }
    }

    /// Bytes of the files read into the request body so far (a rewind counts down again).
    var bodyBytesRead: Int64 { fileBodies.reduce(0) { $0 + $1.bytesRead } }

    /// The most libcurl asked the body for in one read (for tests).
    var largestRead: Int { fileBodies.reduce(0) { max($0, $1.largestRead) } }

    /// The answer's status once libcurl has it; 0 before.
    var status: Int {
        var status = 0
        if let easy { _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) }
        return status
    }

    /// The response once libcurl reports the transfer complete.
    func response() -> TransferResponse {
        var response = TransferResponse(
            status: status, headers: headers, body: String(decoding: body, as: UTF8.self),
            contentHashes: inline?.contentHashes ?? fileBodies.map(\.contentHash))
        response.credentials = request.credentials + options.proxyCredentials
        response.receivedAt = Date().timeIntervalSince1970
        if let bodyDigests {
            response.bodyDigest = BodyDigest(
                md5: URIEncoding.hex(bodyDigests.md5.finalize()),
                sha256: URIEncoding.hex(bodyDigests.sha256.finalize()), size: bodyBytes)
        }
        return response
    }

    /// The error for a libcurl failure code, with libcurl's own words.
    func error(for code: CURLcode) -> UploadError {
        let detail =
            errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: ccurl_easy_strerror(code))
        let file = request.files.count == 1 ? request.files[0].relativePath : nil
        if let stopped {
            let answer = stopped == .answer || stopped == .answerTooLong
            let seconds = String(format: "%g", answer ? options.responseTimeout : options.stallTimeout)
            let cause =
                switch stopped {
                case .sending: "no upload progress for \(seconds) s"
                case .answer: "no answer \(seconds) s after the last byte was sent (--response-timeout)"
                case .answering: "the answer stopped coming for \(seconds) s"
                case .answerTooLong:
                    "the answer was still coming \(seconds) s after the last byte was sent (--response-timeout)"
                }
            return UploadError(.timedOut, file: file, cause: cause)
        }
        if let status = tunnelRefusal {
            // The proxy answered: no outage to wait out; a 407 or 403 is not cured by trying again, a 5xx may be.
            return UploadError(
                UploadError.code(forStatus: status), file: file, httpStatus: status,
                bodyExcerpt: "the proxy refused the tunnel to \(host)")
        }
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            // A name mismatch is no matter of trust, so the CA hint would mislead.
            let hint = detail.contains("name") ? "" : " (give its CA with --cacert)"
            return UploadError(.tlsFailed, file: file, cause: "certificate of \(host) not trusted: \(detail)\(hint)")
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE:
            return UploadError(.tlsFailed, file: file, cause: "cannot use the CA certificates: \(detail)")
        case CURLE_SSL_CERTPROBLEM:
            return UploadError(
                .tlsFailed, file: file,
                cause: "client certificate for \(host) unusable: \(detail) (check --cert, --key)")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CIPHER,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED:
            return UploadError(.tlsFailed, file: file, cause: "handshake with \(host) failed: \(detail)")
        case CURLE_SEND_ERROR where Self.isCertificateAlert(detail),
            CURLE_RECV_ERROR where Self.isCertificateAlert(detail):
            // TLS 1.3 servers refuse a client certificate after the handshake, so libcurl meets the alert on
            // its first read or write.
            return UploadError(
                .tlsFailed, file: file, cause: "\(host) refused the client certificate: \(detail) (check --cert, --key)"
            )
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SEND_ERROR,
            CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return UploadError(.connectionFailed, file: file, cause: detail)
        case CURLE_OPERATION_TIMEDOUT:
            return UploadError(.timedOut, file: file, cause: detail)
        case CURLE_WEIRD_SERVER_REPLY,
            CURLE_UNSUPPORTED_PROTOCOL where Self.isAboutTheAnswer(detail):
            return UploadError(
                .invalidResponse, file: file, cause: "\(host) answered with something not HTTP: \(detail)")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return UploadError(.badURL, file: file, cause: detail)
        case CURLE_READ_ERROR, CURLE_ABORTED_BY_CALLBACK:
            return fileBodies.lazy.compactMap(\.failure).first
                ?? UploadError(.fileUnreadable, file: file, cause: detail)
        default:
            return UploadError(.requestFailed, file: file, cause: detail)
        }
    }

    /// The request's host, for TLS messages (never its user info or query, which may hold secrets).
    private var host: String {
        URLComponents(string: request.url)?.host ?? "the server"
    }

    /// The status a proxy refused the CONNECT tunnel with, or nil: no proxy, or it let the tunnel through.
    private var tunnelRefusal: Int? {
        var status = 0
        guard let easy, ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &status) == CURLE_OK, status >= 300
        else { return nil }
        return status
    }

    /// libcurl 7.88's words when a status line is not HTTP: it reports them as an unsupported protocol, which
    /// otherwise means the URL's scheme.
    static func isAboutTheAnswer(_ detail: String) -> Bool {
        detail.contains("in response") || detail.contains("HTTP/0.9") || detail.contains("server reply")
    }

    /// An OpenSSL alert about certificates in libcurl's words ("tlsv13 alert certificate required",
    /// "sslv3 alert bad certificate", "tlsv1 alert unknown ca").
    static func isCertificateAlert(_ detail: String) -> Bool {
        let text = detail.lowercased()
        return text.contains("alert") && (text.contains("certificate") || text.contains("unknown ca"))
    }

    /// The `fileChanged` error when a file's size or modification time differs from the scan's, or its path names
    /// another file now: one moved over it during the upload, whose size and time may well match, while the
    /// bytes sent were the old file's.
    func changedFile() -> UploadError? {
        for item in request.files {
            var info = stat()
            guard item.path.withCString({ stat($0, &info) }) == 0 else {
                return UploadError(.fileChanged, file: item.relativePath, cause: "the file is gone")
            }
            if let identity = item.identity,
                identity != FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            {
                let cause = "another file took its place during the upload; what was sent is the file it replaced"
                return UploadError(.fileChanged, file: item.relativePath, cause: cause)
            }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            if Int64(info.st_size) != item.size || modified != item.modified {
                let cause =
                    Int64(info.st_size) != item.size
                    ? "size \(item.size) became \(info.st_size)" : "its modification time moved"
                return UploadError(.fileChanged, file: item.relativePath, cause: cause)
            }
        }
        return nil
    }

    /// Bytes of the body the server's side has taken: once libcurl has written the whole body, what the kernel
    /// still holds unacknowledged does not count. A server that stops reading then stalls the upload, instead of
    /// leaving it "sent" until its answer is overdue. A multiplexed connection's queue holds other streams too, so
    /// there what was written counts.
    func delivered(written: Int64, total: Int64) -> Int64 {
        guard !bodyAcknowledged, total > 0, written >= total, answerBytes == 0, let ports = connectionPorts,
            let easy, !multiplexed, ccurl_tls_alpn_is_h2(easy) != 1
        else { return written }
        let queued = ccurl_unacknowledged_bytes(ports.local, ports.remote, &socketHint)
        bodyAcknowledged = queued <= 0
        return queued > 0 ? max(0, written - Int64(queued)) : written
    }

    /// What the bar shows of `delivered`: never less than it showed, so the unacknowledged tail subtracted once the
    /// body is written holds it short of 100% rather than taking it back (a rewind for a retry starts anew).
    func shown(_ delivered: Int64) -> Int64 {
        shownSent = delivered < shownSent && !bodyAcknowledged && delivered > 0 ? shownSent : delivered
        return shownSent
    }

    /// Whether the transfer went over a connection that multiplexes (HTTP/2 or later).
    var multiplexed: Bool {
        guard let easy else { return false }
        var version = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        return version >= Int(CURL_HTTP_VERSION_2_0)
    }

    /// Frees libcurl resources but the easy handle, which it resets (every option back to its default, buffers
    /// kept) and returns for the next transfer of the same loop; the engine calls it after removing the handle from
    /// the multi handle.
    func releaseForReuse() -> UnsafeMutableRawPointer? {
        guard let easy else { return nil }
        ccurl_easy_reset(easy)
        self.easy = nil
        release()
        return easy
    }

    /// Frees libcurl resources; the engine calls it after removing the handle from the multi handle.
    func release() {
        closeUnusedFiles()
        if let easy { ccurl_easy_cleanup(easy) }
        easy = nil
        inline = nil
        stream = nil
        if let headerList { ccurl_slist_free_all(headerList) }
        headerList = nil
    }

    // MARK: - Callback bodies (curl thread)

    func appendBody(_ bytes: UnsafeRawBufferPointer) {
        answerBytes += Int64(bytes.count)
        if bodyDigests != nil {
            // A stored file of any size: hashed as it streams; only a start is kept, for an error's excerpt.
            bodyDigests?.sha256.update(bufferPointer: bytes)
            bodyDigests?.md5.update(bufferPointer: bytes)
            bodyBytes += Int64(bytes.count)
            if body.count < 4096 { body.append(contentsOf: bytes.prefix(4096 - body.count)) }
            return
        }
        let room = Self.responseCap - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
    }

    func appendHeader(_ bytes: UnsafeRawBufferPointer) {
        let line = HeaderLine(bytes)
        if line == .status {
            // An interim answer (100 Continue) is not the server's answer: waiting for that one goes on.
            answerBytes = HeaderLine.isInterim(bytes) ? 0 : Int64(bytes.count)
        } else if answerBytes > 0 {
            answerBytes += Int64(bytes.count)
        }
        switch line {
        case .status: headers = [:]  // a new response (after 100 Continue or a redirect) starts over
        case .field(let name, let value): headers[name] = value
        case .other: break
        }
    }

    /// True (abort) once the upload has sent nothing for the stall timeout. Waiting for the bandwidth cap is not
    /// a stall: with many transfers sharing a low cap, each may wait seconds for its turn; nor is waiting for the
    /// first byte to go, which may be waiting for a connection under `--max-host-connections`.
    func checkStall(sent: Int64, written: Int64, total: Int64) -> Bool {
        // A read-back has nothing to send: it waits for its answer from the start.
        let sendsNothing = if case .none = request.body { true } else { false }
        let held = paused || throttle?.isWaiting == true || (written == 0 && !sendsNothing)
        stopped = stallWatch.stop(
            sent: sent, allSent: sendsNothing || (total > 0 && sent >= total), received: answerBytes,
            wholeAnswerDue: !sendsNothing, paused: held, now: StallWatch.now())
        return stopped != nil
    }

    /// Paused by the user (`p`).
    var isPaused: Bool { paused }

    func setPaused(_ paused: Bool) {
        self.paused = paused
        if !paused {
            // Unpausing lets it read again; a read that finds no tokens pauses it anew.
            throttle?.resumed()
            stallWatch.restart(at: StallWatch.now())
        }
    }

    /// Unpauses a transfer that waited for the bandwidth cap.
    func resumeFromThrottle() {
        guard let easy, let throttle, throttle.isWaiting else { return }
        throttle.resumed()
        stallWatch.restart(at: StallWatch.now())
        ccurl_easy_pause(easy, 0)  // CURLPAUSE_CONT, a macro Swift does not import
    }

    // MARK: - Options

    private func set(_ option: CURLoption, _ value: Int) throws(UploadError) {
        try check(ccurl_easy_setopt_long(easy, option, value))
    }

    /// `withCString`, not the implicit conversion of a `String` argument, which copies it to the heap every time.
    private func set(_ option: CURLoption, _ value: String) throws(UploadError) {
        try check(value.withCString { ccurl_easy_setopt_string(easy, option, $0) })
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws(UploadError) {
        try check(ccurl_easy_setopt_pointer(easy, option, pointer))
    }

    private func check(_ code: CURLcode) throws(UploadError) {
        guard code == CURLE_OK else {
            throw UploadError(.requestFailed, cause: "libcurl: " + String(cString: ccurl_easy_strerror(code)))
        }
    }
}
