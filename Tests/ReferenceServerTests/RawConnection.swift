import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to the test server, for the few exchanges curl cannot script: sending
/// part of a request and then half-closing, as a client that gives up mid-upload does.
///
/// The socket calls block, so each runs on a Dispatch thread, never on the cooperative pool.
final class RawConnection: @unchecked Sendable {
    // `@unchecked Sendable`: `descriptor` is set once in `init` and the calls are made one at a
    // time by the test that owns the connection.
    private let descriptor: Int32

    /// Connects to `127.0.0.1:port`; reads give up after `readTimeout` seconds (a failing test
    /// must not hang).
    init(port: Int, readTimeout: Int = 60) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .ECONNREFUSED)
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Writes all of `data`.
    func send(_ data: Data) async throws {
        try await onDispatchThread { [descriptor] in
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    guard written > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
                    offset += written
                }
            }
        }
    }

    /// Closes the sending side (TCP FIN), as a client closing its socket does, while still
    /// allowing this test to read what the server does next.
    func shutdownWrite() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads until the server closes the connection.
    /// - Returns: everything received.
    /// - Throws: when the read timeout passes first (or the read fails).
    func readToEnd() async throws -> Data {
        try await onDispatchThread { [descriptor] in
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count == 0 { return received }
                if count < 0 {
                    if errno == ECONNRESET { return received }
                    throw POSIXError(.init(rawValue: errno) ?? .EIO)
                }
                received.append(contentsOf: buffer[0..<count])
            }
        }
    }

    private func onDispatchThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
