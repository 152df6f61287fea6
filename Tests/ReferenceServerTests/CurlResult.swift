import Foundation

/// The outcome of one `/usr/bin/curl` invocation: exit status, HTTP status, headers and body.
///
/// Tests drive the server with the real curl binary because the uploader itself is built on
/// libcurl: behaviour such as `Expect: 100-continue` and filename escaping is exactly what the
/// client will exercise.
struct CurlResult: Sendable {
    /// curl's exit code (0 on success; 52/55/56 for empty reply / send / receive failures).
    var exitCode: Int32
    /// `%{http_code}`: `0` when no HTTP response was received.
    var httpStatus: Int
    /// Response headers keyed by lowercased name (last value wins).
    var headers: [String: String]
    /// Response body.
    var body: Data
    /// curl's stderr (with `-v`, the protocol trace).
    var stderr: String

    /// Decodes the body as JSON.
    func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: body)
    }

    /// Runs curl with `arguments` (plus flags capturing status, headers and body).
    static func run(_ arguments: [String]) async throws -> CurlResult {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let headerFile = scratch.appendingPathComponent("headers")
        let bodyFile = scratch.appendingPathComponent("body")
        let stderrFile = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "60", "-D", headerFile.path, "-o", bodyFile.path,
            "-w", "%{http_code}"] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        // Wait for termination without blocking a cooperative thread.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let statusText = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return CurlResult(
            exitCode: process.terminationStatus,
            httpStatus: Int(statusText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0,
            headers: parseHeaders((try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""),
            body: (try? Data(contentsOf: bodyFile)) ?? Data(),
            stderr: (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "")
    }

    private static func parseHeaders(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return headers
    }
}
