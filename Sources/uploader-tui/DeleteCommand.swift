import ArgumentParser
import Foundation
import UploadData
import UploadDomain
import UploaderCLI

/// `uploader-tui delete --from URL KEY...`: removes stored objects by key (seed 002: replace = delete, then upload).
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete stored objects by key from an object URL (the reference server's /objects/) or s3://bucket/.",
        discussion: "Every flag has a --no- form that switches a profile's `true` off for one run.")

    @Option(
        help: ArgumentHelp("Where the keys live: http(s)://host/objects/ or s3://bucket/prefix/.", valueName: "url"))
    var from: String

    @Argument(help: "Keys to delete, relative to --from (as printed in an upload's location).")
    var keys: [String]

    @Option(help: "Bearer token for http(s) stores (default: $UPLOADER_TOKEN). Never printed.")
    var token: String?

    // A profile brings its token, S3 and TLS settings; its destination does not apply (`--from` names the store).
    @OptionGroup(title: "Profiles (config.toml)")
    var profiles: ProfileOptions

    @OptionGroup(title: "S3")
    var s3: S3Options

    @Flag(inversion: .prefixedNo, help: "Skip TLS certificate verification (unsafe).")
    var insecure = false

    @OptionGroup(title: "TLS and proxies")
    var tls: TLSOptions

    /// Deletes each key in turn, one line per key; exit 1 when any was refused or missing.
    func execute() async throws -> ExitStatus {
        guard !keys.isEmpty else { throw UsageError(description: "delete: name at least one key") }
        let requests = try keys.map { key in (key, try request(for: key)) }
        var options = CurlEngine.Options(insecure: insecure)
        try tls.apply(to: &options, environment: ProcessInfo.processInfo.environment)
        try TLSOptions.checkFiles(of: options)
        if let problem = CurlEngine.libraryProblem() { throw UsageError(description: problem) }
        let engine = CurlEngine(options: options)
        defer { engine.shutdown() }
        var failed = 0
        for (key, request) in requests {
            let name = Sanitizer.displayName(key)
            do {
                let response = try await engine.send(request, probe: TransferProbe())
                let isS3 = from.lowercased().hasPrefix("s3://")
                if let error = isS3 ? S3Planner.error(in: response, file: key) : response.error(file: key) {
                    failed += 1
                    FileHandle.standardError.write(Data("failed    \(error)\n".utf8))
                } else {
                    FileHandle.standardError.write(Data("deleted   \(name)\n".utf8))
                }
            } catch {
                failed += 1
                let reason = (error as? UploadError)?.forFile(key).description ?? "\(name): \(error)"
                FileHandle.standardError.write(Data("failed    \(reason)\n".utf8))
            }
        }
        return failed == 0 ? .success : .someFailed
    }

    private func request(for key: String) throws -> TransferRequest {
        let empty = TransferRequest.Body.bytes([], contentType: "application/octet-stream")
        if from.lowercased().hasPrefix("s3://") {
            let planner = try s3.planner(for: from, multipartThreshold: .max, partSize: 5 << 20, partConcurrency: 1)
            return planner.deleteRequest(relativeKey: key)
        }
        let base = try UploadCommand.validate(url: from, option: "--from")
        let planner = PutPlanner(baseURL: base, headers: [], token: nil)
        let item = UploadItem(id: 0, path: "", relativePath: key, size: 0, modified: 0, contentType: "")
        let bearer = token ?? ProcessInfo.processInfo.environment["UPLOADER_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return TransferRequest(
            method: .delete, url: planner.url(for: item), headers: [], bearerToken: bearer, body: empty)
    }
}
