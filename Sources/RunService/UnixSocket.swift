import CRunService
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The few socket calls the run and its clients make, on descriptors of `AF_UNIX` stream sockets.
enum UnixSocket {
    /// A socket call that failed, with its errno.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    /// Listens at `path` (removed first when stale), mode 0600.
    static func listen(at path: String) throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        // Created 0600 from the start: no moment at which another user could connect.
        let mask = umask(0o177)
        defer { umask(mask) }
        let bound = withAddress(path) { bind(fd, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "bind \(path)", code: code)
        }
        guard Glibc.listen(fd, 16) == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "listen", code: code)
        }
        return fd
    }

    /// Connects to the socket at `path`.
    static func connect(to path: String) throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        let connected = withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "connect", code: code)
        }
        return fd
    }

    /// Accepts the next connection; nil once the listening socket is shut down.
    static func accept(_ listener: Int32) -> Int32? {
        while true {
            let fd = crs_accept_cloexec(listener)
            if fd >= 0 { return fd }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// The user ID at the other end, from the kernel (SO_PEERCRED), not from anything the peer says.
    static func peerUID(_ fd: Int32) -> uid_t? {
        var uid: uid_t = 0
        return crs_peer_uid(fd, &uid) == 0 ? uid : nil
    }

    /// Writes all of `data`; false when the peer is gone.
    static func write(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // MSG_NOSIGNAL: a screen that went away must not kill the run with SIGPIPE.
                let n = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }

    private static func withAddress(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            errno = ENAMETOOLONG
            return -1
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
