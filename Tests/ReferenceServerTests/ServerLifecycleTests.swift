import Foundation
import ReferenceServer
import Testing

/// Starting, stopping and running the server, in-process and as the `uploader-server` executable.
@Suite("Server lifecycle")
struct ServerLifecycleTests {
    @Test("stop closes the listening socket; a taken port fails start with startFailed")
    func startStop() async throws {
        var portInUse = 0
        try await TestServer.with { server in
            portInUse = server.port
            #expect(server.port > 0)
            let again = try await server.server.start()
            #expect(again == server.port)  // idempotent while running

            var clash = ReferenceServerConfiguration(root: server.root.path)
            clash.port = server.port
            clash.logRequests = false
            let second = ReferenceServer(configuration: clash)
            await #expect(throws: ReferenceServerError.self) { try await second.start() }
        }
        // `TestServer.with` stopped the server: its port is free to bind again. Bound at once, in process: a curl
        // probe's spawn gave other tests' servers time to take the freed port.
        let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("rebind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sandbox) }
        var rebind = ReferenceServerConfiguration(root: sandbox.path)
        rebind.port = portInUse
        rebind.logRequests = false
        let successor = ReferenceServer(configuration: rebind)
        #expect(try await successor.start() == portInUse)
        await successor.stop()
    }

    /// Path of the `uploader-server` binary next to the test bundle's build products.
    static let executablePath: URL = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/uploader-server")
    }()

    @Test(
        "uploader-server prints its URL, writes the port file and exits cleanly on SIGTERM",
        .enabled(if: FileManager.default.isExecutableFile(atPath: executablePath.path), "uploader-server not built")
    )
    func runsAsExecutable() async throws {
        let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("exe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let portFile = sandbox.appendingPathComponent("port")

        let process = Process()
        process.executableURL = Self.executablePath
        process.arguments = ["--port", "0", "--root", sandbox.appendingPathComponent("root").path,
            "--port-file", portFile.path]
        var environment = ProcessInfo.processInfo.environment
        environment["UPLOADER_SERVER_TOKEN"] = "env-token"
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try process.run()

        // The banner line is the readiness signal: block (off the cooperative pool) until it arrives.
        let line = await Task.detached { Self.readLine(stdout.fileHandleForReading) }.value
        let port = try #require(Int(try String(contentsOf: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(line == "uploader-server listening on http://127.0.0.1:\(port)")

        let unauthorized = try await CurlResult.run(["http://127.0.0.1:\(port)/_stats"])
        let authorized = try await CurlResult.run(["-H", "Authorization: Bearer env-token", "http://127.0.0.1:\(port)/_stats"])
        #expect(unauthorized.httpStatus == 401)
        #expect(authorized.httpStatus == 200)

        process.terminate()  // SIGTERM
        var iterator = exited.stream.makeAsyncIterator()
        #expect(await iterator.next() == 0)
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != 10 {
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
