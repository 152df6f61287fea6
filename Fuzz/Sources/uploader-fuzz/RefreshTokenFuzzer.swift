import UploadDomain

@testable import UploadData

/// `RefreshURLTokenProvider.token(inJSON:)` on a fuzzed answer: a token it returns is not empty, lies on one line
/// and can be sent as an `Authorization` header.
enum RefreshTokenFuzzer {
    static func run(_ input: [UInt8]) {
        guard let token = RefreshURLTokenProvider.token(inJSON: input.text) else { return }
        require(!token.isEmpty, "empty token")
        require(!token.contains(where: \.isNewline), "token with a line break: \(token.debugDescription)")
        require(
            HTTPHeader(name: "Authorization", value: "Bearer " + token) != nil,
            "token that is no header value: \(token.debugDescription)")
    }
}
