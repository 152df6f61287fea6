import Testing
import UploaderCLI

@Suite("Format")
struct FormatTests {
    @Test("durations: milliseconds under a tenth of a second, tenths under 10 s, then whole seconds and minutes")
    func durations() {
        #expect(Format.duration(.milliseconds(43)) == "43ms")
        #expect(Format.duration(.milliseconds(250)) == "0.3s")
        #expect(Format.duration(.seconds(42)) == "42s")
        #expect(Format.duration(.seconds(150)) == "2m30s")
    }
}
