import Testing

@testable import UploadData

@Suite("RefreshURLTokenProvider")
struct RefreshURLTokenProviderTests {
    @Test("the token is access_token, else token")
    func token() {
        #expect(RefreshURLTokenProvider.token(inJSON: "{\"access_token\":\"a1\",\"token\":\"t1\"}") == "a1")
        #expect(RefreshURLTokenProvider.token(inJSON: "{\"token\":\"t1\",\"expires_in\":60}") == "t1")
        #expect(RefreshURLTokenProvider.token(inJSON: "{\"access_token\":\"\"}") == nil)
        #expect(RefreshURLTokenProvider.token(inJSON: "{\"access_token\":12}") == nil)
        #expect(RefreshURLTokenProvider.token(inJSON: "[\"t\"]") == nil)
        #expect(RefreshURLTokenProvider.token(inJSON: "not json") == nil)
    }

    @Test("a token that cannot go on a header line is refused: line breaks, and NUL (found by make fuzz)")
    func unsendable() {
        #expect(RefreshURLTokenProvider.token(inJSON: "{\"token\":\"a\\nb\"}") == nil)
        #expect(RefreshURLTokenProvider.token(inJSON: "{\"token\":\"a\\u2028b\"}") == nil)
        #expect(RefreshURLTokenProvider.token(inJSON: "{\"access_token\":\"\\u0000\"}") == nil)
        #expect(RefreshURLTokenProvider.token(inJSON: "{\"access_token\":\"ab\\u0000cd\"}") == nil)
    }
}
