import Testing

@testable import UploadData

@Suite("MultiplexedOrigins")
struct MultiplexedOriginsTests {
    @Test("an origin is the scheme and authority, lowercased; paths, queries and fragments do not split it")
    func origins() {
        #expect(MultiplexedOrigins.origin(of: "https://Example.COM:8443/a/b?c=1") == "https://example.com:8443")
        #expect(MultiplexedOrigins.origin(of: "https://example.com?x") == "https://example.com")
        #expect(MultiplexedOrigins.origin(of: "https://example.com#f") == "https://example.com")
        #expect(MultiplexedOrigins.origin(of: "https://example.com") == "https://example.com")
        #expect(MultiplexedOrigins.origin(of: "HTTP://[::1]:80/x") == "http://[::1]:80")
        #expect(MultiplexedOrigins.origin(of: "Not/A URL") == "not/a url", "no authority: the whole string")
    }

    @Test("an origin that may multiplex, or does, has a loop of its own; one that answered over HTTP/1.1 has none")
    func loops() {
        let seen = MultiplexedOrigins()
        let first = seen.loop(for: "https://h2.example/a", mayMultiplex: true, among: 4)
        #expect(first.map { (0..<4).contains($0) } == true, "not yet answered: kept to one loop")
        #expect(seen.loop(for: "http://plain.example/a", mayMultiplex: false, among: 4) == nil)
        seen.record("https://h2.example/first", multiplexed: true)
        #expect(seen.loop(for: "https://H2.example/other/path", mayMultiplex: true, among: 4) == first)
        #expect(seen.loop(for: "https://h2.example/a", mayMultiplex: false, among: 4) == first, "answered: it is known")
        seen.record("https://h1.example/x", multiplexed: false)
        #expect(seen.loop(for: "https://h1.example/a", mayMultiplex: true, among: 4) == nil)
        #expect(
            seen.loop(for: "https://h2.example/a", mayMultiplex: true, among: 1) == nil, "one loop: nothing to choose")
    }
}
