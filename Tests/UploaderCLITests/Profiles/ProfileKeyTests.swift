import Testing

@testable import UploaderCLI

@Suite("ProfileKey")
struct ProfileKeyTests {
    @Test("keys are the long option names in snake_case (a dot as _ too), each once")
    func names() {
        #expect(Set(ProfileKey.all.map(\.name)).count == ProfileKey.all.count)
        for key in ProfileKey.all where key.long != nil {
            let snake = key.long!.replacingOccurrences(of: "-", with: "_").replacingOccurrences(of: ".", with: "_")
            #expect(key.name == snake, "\(key.name)")
        }
        #expect(ProfileKey.named("http1_1")?.spelling == "--http1.1")
        #expect(ProfileKey.named("headers")?.spelling == "-H")
        #expect(ProfileKey.named("fields")?.spelling == "-F")
        #expect(ProfileKey.forShort("r")?.name == "recursive")
    }

    @Test("a misspelling suggests the nearest key; nonsense suggests none")
    func suggestions() {
        #expect(ProfileKey.suggestion(for: "concurency") == "concurrency")
        #expect(ProfileKey.suggestion(for: "header") == "headers")
        #expect(ProfileKey.suggestion(for: "tokencommand") == "token_command")
        #expect(ProfileKey.suggestion(for: "zzzzzz") == nil)
    }
}
