import Foundation
import UploadDomain

/// Seed 001: files go as `multipart/form-data` POSTs, one or more files per request.
public struct MultipartPlanner: RequestPlanner {
    public let url: String
    public let fileField: String
    public let fields: [FormField]
    public let headers: [HTTPHeader]
    public let token: String?
    public let batchSize: Int
    /// Send an `Idempotency-Key` with each request (off for servers that refuse unknown headers).
    public let idempotencyKeys: Bool
    public var sendsIdempotencyKeys: Bool { idempotencyKeys }
    private let redactedURL: String
    private let formIdentity: String

    /// Creates a planner.
    public init(
        url: String, fileField: String, fields: [FormField], headers: [HTTPHeader], token: String?, batchSize: Int,
        idempotencyKeys: Bool = true
    ) {
        self.url = url
        self.idempotencyKeys = idempotencyKeys
        self.fileField = fileField
        self.fields = fields
        self.headers = headers
        self.token = token
        self.batchSize = batchSize
        redactedURL = Redactor.url(url)
        formIdentity = IdempotencyKey.formIdentity(fileField: fileField, fields: fields)
    }

    public func destination(of item: UploadItem) -> String { redactedURL }
    public func journalDestination(of item: UploadItem) -> String { Redactor.journalURL(url) }

    public func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
        TransferRequest(
            method: .post, url: url, headers: requestHeaders(items), bearerToken: token,
            body: .multipart(fields: fields, fileField: fileField, files: items))
    }

    /// Every file goes to the one URL with the same credentials: a refusal of either would meet them all.
    public func failsEveryFile(_ error: UploadError) -> Bool { error.refusesTheEndpoint }

    public func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
        ResponseResults.split(response, count: items.count, fallbackLocation: { _ in nil })
    }

    public func curlCommand(for item: UploadItem) -> String {
        // `-F` reads no globs in its path; the URL is globbed.
        var args = ["curl", "--fail-with-body"] + ShellQuote.globoff(redactedURL)
        // Taken as they are, like the request's fields: `-F` would read `;type=` in a value, or a file after `@`. A
        // secret's value is left out, as a secret header's is.
        args += fields.map { field in
            let value = Redactor.isSecretName(field.name) ? "REDACTED" : field.value
            return "--form-string " + ShellQuote.quote("\(field.name)=\(value)")
        }
        let safeName = item.relativePath.replacingOccurrences(of: "\"", with: "%22")
        let part =
            "\(fileField)=@\(ShellQuote.formWord(item.path));type=\(item.contentType);filename=\(ShellQuote.formWord(safeName))"
        args.append("-F " + ShellQuote.quote(part))
        args += ShellQuote.headerArguments(requestHeaders([item]), hasToken: token != nil, multipart: true)
        args.append(ShellQuote.quote(redactedURL))
        return args.joined(separator: " ")
    }

    private func requestHeaders(_ items: [UploadItem]) -> [HTTPHeader] {
        idempotencyKeys ? IdempotencyKey.adding(to: headers, url: url, items: items, form: formIdentity) : headers
    }
}

/// Splits a response among the files of its request.
enum ResponseResults {
    /// One result per file: the matching entry of a `files` array when the server lists one per file
    /// (as the reference server does), else the whole body for each.
    static func split(
        _ response: TransferResponse, count: Int, fallbackLocation: (Int) -> String?
    ) -> [UploadResult] {
        // An empty body (sinks, many servers) is not parsed: the failed parse builds an NSError per request.
        let blank = response.body.utf8.allSatisfy { " \t\r\n".utf8.contains($0) }
        let json =
            blank
            ? nil : try? JSONSerialization.jsonObject(with: Data(response.body.utf8), options: [.fragmentsAllowed])
        if let object = json as? [String: Any], let files = object["files"] as? [[String: Any]], files.count == count {
            return files.enumerated().map { index, entry in
                let text = response.shown(CompactJSON.text(entry) ?? "{}")
                let location = (entry["path"] as? String) ?? (entry["key"] as? String) ?? fallbackLocation(index)
                return UploadResult(httpStatus: response.status, body: text, isJSON: true, location: location)
            }
        }
        let location = (json as? [String: Any]).flatMap { ($0["path"] as? String) ?? ($0["key"] as? String) }
        let compact = json.flatMap(CompactJSON.text).map(response.shown)
        return (0..<count).map { index in
            UploadResult(
                httpStatus: response.status, body: compact ?? Sanitizer.excerpt(response.shown(response.body)),
                isJSON: compact != nil, location: location ?? fallbackLocation(index))
        }
    }
}
