import Synchronization
import Testing
import UploadDomain

@Suite("LazyText")
struct LazyTextTests {
    @Test("built on first read and kept; a build with nothing yet is asked again on the next read")
    func keptOnceBuilt() {
        let calls = Mutex(0)
        let text = LazyText {
            let call = calls.withLock { count in
                count += 1
                return count
            }
            return call == 1 ? nil : "curl \(call)"
        }
        #expect(calls.withLock { $0 } == 0)
        #expect(text.text == "")
        #expect(text.text == "curl 2")
        #expect(text.text == "curl 2")
        #expect(calls.withLock { $0 } == 2)
    }
}
