import Foundation
import ReferenceServer

/// A ``ReferenceServer`` on 127.0.0.1 with a free port and a private temporary root, for one test.
struct TestServer: Sendable {
    /// The running server.
    let server: ReferenceServer
    /// The port it is bound to.
    let port: Int
    /// Its storage root (inside `sandbox`).
    let root: URL
    /// A private directory containing `root`; hostile-path tests check nothing lands beside it.
    let sandbox: URL

    /// `http://127.0.0.1:<port>`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server configured by `configure`, runs `body`, then stops the server and deletes
    /// its files whatever the outcome.
    static func with(
        _ configure: (inout ReferenceServerConfiguration) -> Void = { _ in },
        _ body: (TestServer) async throws -> Void
    ) async throws {
        let sandbox = FileManager.default.temporaryDirectory
            .appendingPathComponent("reference-server-tests-\(UUID().uuidString)")
        let root = sandbox.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var configuration = ReferenceServerConfiguration(root: root.path)
        configuration.logRequests = false
        configure(&configuration)
        let server = ReferenceServer(configuration: configuration)
        let port = try await server.start()
        let testServer = TestServer(server: server, port: port, root: root, sandbox: sandbox)
        do {
            try await body(testServer)
        } catch {
            await server.stop()
            try? FileManager.default.removeItem(at: sandbox)
            throw error
        }
        await server.stop()
        try? FileManager.default.removeItem(at: sandbox)
    }

    /// Writes `data` to a new file in the sandbox (outside the root) and returns its path.
    func makeInputFile(named name: String, contents data: Data) throws -> String {
        let inputs = sandbox.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let url = inputs.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    /// Every regular file under the sandbox, as paths relative to it (hidden files included).
    func filesInSandbox() -> [String] {
        let base = sandbox.resolvingSymlinksInPath().path
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { relative in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: base + "/" + relative, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }
}

/// Random bytes, so content assertions cannot pass by accident.
func randomData(count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
}

/// Client-side mirror of the upload response, decoded independently of the server's types.
struct UploadResponseBody: Decodable {
    struct File: Decodable {
        var field: String
        var filename: String
        var path: String
        var size: Int
        var sha256: String
        var contentType: String
        var signature: String?
        var width: Int?
        var height: Int?
    }

    var datasetID: String
    var files: [File]
    var fields: [String: String]
}
