import Foundation

/// nginx as a child on free 127.0.0.1 ports, storing PUT bodies with its dav module: a TLS server, a TLS server
/// that requires a client certificate, a plain HTTP server, a forward proxy in front of the plain one, a TLS server
/// offering HTTP/2, a TLS server that closes every connection after one request, and on request a TLS front for an
/// S3 server (moto).
///
/// One process (`master_process off`), so stopping it is one signal; every file it writes stays in its folder.
final class NginxFixture {
    let folder: TestFolder
    let tlsPort: Int
    let mutualTLSPort: Int
    let plainPort: Int
    let proxyPort: Int
    let http2Port: Int
    let oneRequestPort: Int
    /// The TLS front for the S3 server given to `start`.
    let s3Port: Int
    private let child: ChildProcess.Running
    private var stopped = false

    var davRoot: String { folder.path + "/dav" }
    var accessLog: String { folder.path + "/access.log" }
    var proxyLog: String { folder.path + "/proxy.log" }
    var errorLog: String { folder.path + "/error.log" }
    /// The HTTP/2 and one-request servers' log, as `PORT PROTOCOL CONNECTION SESSION-REUSED METHOD URI STATUS`.
    var connectionLog: String { folder.path + "/connections.log" }
    /// The S3 front's log, as `METHOD URI X-AMZ-CONTENT-SHA256 X-AMZ-CHECKSUM-CRC32`.
    var s3Log: String { folder.path + "/s3.log" }

    /// Starts nginx with the server certificate of `certificates` and waits until every port accepts.
    /// - Parameter s3Upstream: the port of a plain-HTTP S3 server to put behind `s3Port`.
    /// - Throws: `TestFailure` when nginx is missing or does not start (the tests need it: `make deps`).
    static func start(_ certificates: TestCertificates, s3Upstream: Int? = nil) async throws -> NginxFixture {
        // A port found free can be taken by another test's server before nginx binds it: then new ports, twice more.
        for _ in 0..<2 {
            do {
                return try await attempt(certificates, s3Upstream: s3Upstream)
            } catch let taken as PortTaken {
                await taken.fixture.stop()
            }
        }
        return try await attempt(certificates, s3Upstream: s3Upstream)
    }

    /// nginx said a port it was given was taken meanwhile.
    private struct PortTaken: Error {
        let fixture: NginxFixture
    }

    private static func attempt(_ certificates: TestCertificates, s3Upstream: Int?) async throws -> NginxFixture {
        let nginx = try Self.executable()
        let folder = try TestFolder("nginx")
        for sub in ["dav", "tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi"] {
            try FileManager.default.createDirectory(
                atPath: folder.path + "/" + sub, withIntermediateDirectories: true)
        }
        let ports = try (0..<7).map { _ in try freeLoopbackPort() }
        let d = folder.path
        // The client's Host header goes on unchanged: moto checks the signature over it.
        let s3Front = s3Upstream.map { upstream in
            """
            server {
                    listen 127.0.0.1:\(ports[6]) ssl;
                    access_log \(d)/s3.log s3;
                    location / { proxy_pass http://127.0.0.1:\(upstream); proxy_set_header Host $http_host; }
                }
            """
        }
        // $request keeps a proxy request's absolute URI, which tells a proxied request from a direct one.
        let configuration = """
            daemon off;
            master_process off;
            pid \(d)/nginx.pid;
            error_log \(d)/error.log info;
            events { worker_connections 64; }
            http {
                log_format line '$server_port "$request" $status $ssl_client_verify';
                log_format connection '$server_port $server_protocol $connection $ssl_session_reused $request_method $uri $status';
                log_format s3 '$request_method $uri $http_x_amz_content_sha256 $http_x_amz_checksum_crc32';
                access_log \(d)/access.log line;
                client_body_temp_path \(d)/tmp/body;
                proxy_temp_path \(d)/tmp/proxy;
                fastcgi_temp_path \(d)/tmp/fastcgi;
                uwsgi_temp_path \(d)/tmp/uwsgi;
                scgi_temp_path \(d)/tmp/scgi;
                ssl_certificate \(certificates.serverCertificate);
                ssl_certificate_key \(certificates.serverKey);
                ssl_protocols TLSv1.2 TLSv1.3;
                ssl_session_cache shared:tests:1m;
                root \(d)/dav;
                dav_methods PUT;
                create_full_put_path on;
                client_max_body_size 0;
                server {
                    listen 127.0.0.1:\(ports[0]) ssl;
                    access_log \(d)/access.log line;
                    access_log \(d)/connections.log connection;
                    # A token refresh endpoint and a folder that wants its token: a second kind of request over TLS.
                    location = /auth/refresh { return 200 '{"access_token":"fresh-token"}'; }
                    location /auth-only/ { if ($http_authorization != "Bearer fresh-token") { return 401; } }
                }
                server {
                    listen 127.0.0.1:\(ports[1]) ssl;
                    ssl_client_certificate \(certificates.caCertificate);
                    ssl_verify_client on;
                }
                server { listen 127.0.0.1:\(ports[2]); }
                server {
                    listen 127.0.0.1:\(ports[3]);
                    access_log \(d)/proxy.log line;
                    location / { proxy_pass http://127.0.0.1:\(ports[2]); }
                }
                server {
                    listen 127.0.0.1:\(ports[4]) ssl http2;
                    access_log \(d)/connections.log connection;
                    # A multipart POST read whole, then stored as it came (PUT to the plain server's folder).
                    location /form/ { proxy_method PUT; proxy_pass http://127.0.0.1:\(ports[2]); }
                }
                server {
                    listen 127.0.0.1:\(ports[5]) ssl;
                    keepalive_requests 1;
                    access_log \(d)/connections.log connection;
                }
                \(s3Front ?? "")
            }
            """
        try configuration.write(toFile: d + "/nginx.conf", atomically: true, encoding: .utf8)
        let arguments = ["-p", d, "-e", d + "/error.log", "-c", d + "/nginx.conf"]
        let check = try await ChildProcess.run(nginx, arguments + ["-t", "-q"])
        guard check.status == 0 else { throw TestFailure(description: "nginx -t: \(check.standardError)") }
        let child = try ChildProcess.start(nginx, arguments)
        let fixture = NginxFixture(
            folder: folder, ports: ports, child: child)
        // nginx binds every port, in the configuration's order, before it serves any: the last one accepting means
        // all do. Only the plain proxy port is probed, so a probe never shows up as a TLS handshake.
        try await waitUntil("nginx listening on \(ports)", timeout: .seconds(20)) {
            let log = (try? String(contentsOfFile: d + "/error.log", encoding: .utf8)) ?? ""
            if log.contains("Address already in use") { throw PortTaken(fixture: fixture) }
            if log.contains("[emerg]") { throw TestFailure(description: "nginx did not start: \(log)") }
            return acceptsConnections(ports[3])
        }
        return fixture
    }

    private init(folder: TestFolder, ports: [Int], child: ChildProcess.Running) {
        self.folder = folder
        (tlsPort, mutualTLSPort, plainPort, proxyPort) = (ports[0], ports[1], ports[2], ports[3])
        (http2Port, oneRequestPort, s3Port) = (ports[4], ports[5], ports[6])
        self.child = child
    }

    deinit {
        // A test that threw before `stop()`: no nginx outlives it.
        if !stopped {
            child.signal(SIGKILL)
            var status: Int32 = 0
            waitpid(child.pid, &status, 0)
        }
    }

    /// SIGTERM (nginx's fast shutdown), then waits for the exit.
    func stop() async {
        guard !stopped else { return }
        stopped = true
        child.signal(SIGTERM)
        _ = await child.wait()
    }

    /// The access log's lines for one port, as `"METHOD URI HTTP/1.1" STATUS CLIENT-VERIFY`.
    func requests(port: Int) -> [String] {
        lines(accessLog).filter { $0.hasPrefix("\(port) ") }.map { String($0.dropFirst("\(port) ".count)) }
    }

    /// The connection log's entries for one port.
    func connections(port: Int) -> [LoggedRequest] {
        lines(connectionLog).compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 7, words[0] == String(port) else { return nil }
            return LoggedRequest(
                protocolName: words[1], connection: words[2], sessionReused: words[3] == "r", method: words[4],
                uri: words[5], status: words[6])
        }
    }

    /// One request of the connection log.
    struct LoggedRequest {
        let protocolName: String
        let connection: String
        let sessionReused: Bool
        let method: String
        let uri: String
        let status: String
    }

    /// The proxy's access log lines, in the same form.
    func proxiedRequests() -> [String] {
        lines(proxyLog).map { String($0.drop(while: { $0 != " " }).dropFirst()) }
    }

    /// TLS handshakes nginx saw fail (logged at level info), for counting attempts that never got to a request.
    func failedHandshakes() -> [String] {
        lines(errorLog).filter { $0.contains("while SSL handshaking") }
    }

    /// The S3 front's log lines.
    func s3Requests() -> [String] { lines(s3Log) }

    private func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private static func executable() throws -> String {
        for path in ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw TestFailure(description: "nginx is not installed (make deps installs it)")
    }
}

/// A port nothing listens on now, on 127.0.0.1.
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// True when a TCP connection to 127.0.0.1:`port` is accepted.
func acceptsConnections(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
