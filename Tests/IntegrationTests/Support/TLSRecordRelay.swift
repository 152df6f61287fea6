import Foundation
import Synchronization

/// A TCP relay on 127.0.0.1 to another local port that notes the length of every TLS record the client sends.
/// A record's 5-byte header stays in clear under TLS 1.3, so the relay sees how the client cut its bytes into
/// records without decrypting them.
final class TLSRecordRelay: Sendable {
    let port: Int
    private let listener: Int32
    private let target: Int
    private let lengths = Mutex<[Int]>([])

    init(to target: Int) throws {
        (listener, port) = try Loopback.listen()
        self.target = target
        Thread { [self] in acceptLoop() }.start()
    }

    /// The length field (plaintext, content type and tag) of each record clients sent so far, in order.
    var recordLengths: [Int] { lengths.withLock { $0 } }

    /// How many records clients sent that hold `plaintext` bytes: TLS 1.3 adds a content type byte and a 16-byte tag
    /// to each record's length.
    func records(holding plaintext: Int) -> Int {
        recordLengths.filter { $0 == plaintext + 17 }.count
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = Loopback.connect(port: target) else {
                close(client)
                continue
            }
            let ended = Ends()
            // The second direction to end closes both sockets, so neither thread uses a descriptor closed under it.
            let finish: @Sendable () -> Void = {
                if ended.count.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
                    close(client)
                    close(server)
                }
            }
            Thread { [self] in
                forward(from: client, to: server, noting: true)
                finish()
            }.start()
            Thread { [self] in
                forward(from: server, to: client, noting: false)
                finish()
            }.start()
        }
    }

    /// Copies bytes until either side closes, then shuts both down so the other direction ends too.
    private func forward(from source: Int32, to destination: Int32, noting: Bool) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var header: [UInt8] = []
        var remaining = 0
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            guard count > 0, send(destination, buffer, count, Int32(MSG_NOSIGNAL)) == count else { break }
            guard noting else { continue }
            var index = 0
            while index < count {
                if remaining > 0 {
                    let taken = min(remaining, count - index)
                    remaining -= taken
                    index += taken
                } else {
                    header.append(buffer[index])
                    index += 1
                    if header.count == 5 {
                        remaining = Int(header[3]) << 8 | Int(header[4])
                        lengths.withLock { $0.append(remaining) }
                        header.removeAll()
                    }
                }
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    private final class Ends: Sendable {
        let count = Atomic<Int>(0)
    }
}
