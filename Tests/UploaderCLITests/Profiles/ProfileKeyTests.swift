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

    @Test("every flag has an inverse that switches it off: --no-X for --X, and --X for --no-X")
    func inverses() {
        #expect(ProfileKey.named("recursive")?.inverse == "no-recursive")
        #expect(ProfileKey.named("strip_metadata")?.inverse == "no-strip-metadata")
        #expect(ProfileKey.named("http1_1")?.inverse == "no-http1.1")
        #expect(ProfileKey.named("no_tui")?.inverse == "tui")
        #expect(ProfileKey.named("no_resume")?.inverse == "resume")
        #expect(ProfileKey.named("no_idempotency_key")?.inverse == "idempotency-key")
        #expect(ProfileKey.named("retries")?.inverse == nil)
        #expect(ProfileKey.forInverse("no-verify")?.name == "verify")
        #expect(ProfileKey.forInverse("tui")?.name == "no_tui")
        let flags = ProfileKey.all.filter { $0.kind == .flag }
        #expect(flags.allSatisfy { $0.inverse != nil })
        // No inverse is another key's option.
        #expect(flags.allSatisfy { ProfileKey.forLong($0.inverse!) == nil })
    }

    @Test("a misspelling suggests the nearest key; nonsense suggests none")
    func suggestions() {
        #expect(ProfileKey.suggestion(for: "concurency") == "concurrency")
        #expect(ProfileKey.suggestion(for: "header") == "headers")
        #expect(ProfileKey.suggestion(for: "tokencommand") == "token_command")
        #expect(ProfileKey.suggestion(for: "zzzzzz") == nil)
    }
}
