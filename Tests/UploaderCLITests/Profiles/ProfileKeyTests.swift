import Testing

@testable import UploaderCLI

@Suite("ProfileKey")
struct ProfileKeyTests {
    @Test("keys are the long option names in snake_case, each once")
    func names() {
        #expect(Set(ProfileKey.all.map(\.name)).count == ProfileKey.all.count)
        for key in ProfileKey.all where key.long != nil {
            #expect(key.long == key.name.replacingOccurrences(of: "_", with: "-"), "\(key.name)")
        }
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
