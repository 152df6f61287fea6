import Foundation
import ReferenceServer

/// The reference server, in process, on a free 127.0.0.1 port with a temporary root.
final class ServerFixture {
    let server: ReferenceServer
    let root: TestFolder
    let port: Int

    /// Starts a server; `configure` adjusts fault injection, tokens and delays.
    static func start(_ configure: (inout ReferenceServerConfiguration) -> Void = { _ in }) async throws
        -> ServerFixture
    {
        let root = try TestFolder("server")
        var configuration = ReferenceServerConfiguration(root: root.path)
        configuration.logRequests = false
        configure(&configuration)
        let server = ReferenceServer(configuration: configuration)
        let port = try await server.start()
        return ServerFixture(server: server, root: root, port: port)
    }

    private init(server: ReferenceServer, root: TestFolder, port: Int) {
        self.server = server
        self.root = root
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The absolute path of a stored object from its storage path (as the server answered it).
    func stored(_ storagePath: String) -> String { root.path + "/" + storagePath }

    func stop() async { await server.stop() }
}
