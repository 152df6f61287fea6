import UploadDomain

/// Plain PUT: each file's raw bytes go to the base URL plus its relative path (WebDAV, `curl -T` servers).
public struct PutPlanner: RequestPlanner {
    public let baseURL: String
    public let headers: [HTTPHeader]
    public let token: String?
    public var batchSize: Int { 1 }
    /// Send an `Idempotency-Key` with each request (off for servers that refuse unknown headers).
    public let idempotencyKeys: Bool
    public var sendsIdempotencyKeys: Bool { idempotencyKeys }

    /// Creates a planner; a missing trailing slash on `baseURL`'s path is added.
    public init(baseURL: String, headers: [HTTPHeader], token: String?, idempotencyKeys: Bool = true) {
        let query = baseURL.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? baseURL.endIndex
        let path = baseURL[..<query]
        self.baseURL = String(path.hasSuffix("/") ? path : path + "/") + baseURL[query...]
        self.idempotencyKeys = idempotencyKeys
        self.headers = headers
        self.token = token
    }

    /// The file's URL: each path component percent-encoded.
    /// The base URL with the file's relative path appended to its path, before any query (`?key=…` stays last).
    public func url(for item: UploadItem) -> String {
        let path = URIEncoding.encodePath(item.relativePath)
        guard let query = baseURL.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return baseURL + path }
        return baseURL[..<query] + path + baseURL[query...]
    }

    public func destination(of item: UploadItem) -> String { Redactor.url(url(for: item)) }
    public func journalDestination(of item: UploadItem) -> String { Redactor.journalURL(url(for: item)) }

    public func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
        let item = items[0]
        return TransferRequest(
            method: .put, url: url(for: item), headers: requestHeaders(item), bearerToken: token,
            body: .file(item, contentType: item.contentType))
    }

    public func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
        ResponseResults.split(response, count: items.count, fallbackLocation: { items[$0].relativePath })
    }

    /// Every file goes to the one host with the same credentials: a 401 once any token refresh is spent, or a
    /// certificate refused, would meet them all. A 404 or 409 may be one subfolder's, so those stay the file's.
    public func failsEveryFile(_ error: UploadError) -> Bool {
        error.code == .tlsFailed || error.httpStatus == 401
    }

    public func curlCommand(for item: UploadItem) -> String {
        let target = Redactor.url(url(for: item))
        var args = ["curl", "--fail-with-body"] + ShellQuote.globoff(item.path, target)
        args += ["-T", ShellQuote.quote(item.path)]
        args += ShellQuote.headerArguments(requestHeaders(item), hasToken: token != nil, contentType: item.contentType)
        args.append(ShellQuote.quote(target))
        return args.joined(separator: " ")
    }

    private func requestHeaders(_ item: UploadItem) -> [HTTPHeader] {
        idempotencyKeys ? IdempotencyKey.adding(to: headers, url: url(for: item), items: [item]) : headers
    }
}
