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
    }

    @Test("only an origin seen multiplexing gets a loop, the same one for every path, within the loops")
    func loops() {
        let seen = MultiplexedOrigins()
        #expect(seen.loop(for: "https://h2.example/a", among: 4) == nil)
        seen.record("https://h2.example/first")
        let loop = seen.loop(for: "https://h2.example/a", among: 4)
        #expect(loop.map { (0..<4).contains($0) } == true)
        #expect(seen.loop(for: "https://H2.example/other/path", among: 4) == loop)
        #expect(seen.loop(for: "https://h1.example/a", among: 4) == nil)
        #expect(seen.loop(for: "https://h2.example/a", among: 1) == nil, "one loop: nothing to choose")
    }
}
