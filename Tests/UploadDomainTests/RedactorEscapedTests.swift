import Testing

@testable import UploadDomain

@Suite("Redactor: secrets a JSON encoder escaped")
struct RedactorEscapedTests {
    @Test("a token and a percent-encoded signature repeated with \\/ and \\u escapes are redacted")
    func escaped() {
        let secrets = ["TOK/PART+TWO="] + Redactor.secrets(in: "http://h/p?sig=QSIG%2FPART%2BTWO%3D")
        let answer = #"{"error":"bad TOK\/PART+TWO= and QSIG\/PART+TWO=, TOK\/PART\u002bTWO\u003D, ok\/path"}"#
        #expect(
            Redactor.redacting(secrets, in: answer)
                == #"{"error":"bad REDACTED and REDACTED, REDACTED, ok\/path"}"#)
    }

    @Test("a secret beyond the BMP escaped as a surrogate pair, and a plain one beside an escaped one")
    func surrogatesAndPlain() {
        #expect(Redactor.redacting(["k😀y/12"], in: #"a k\ud83d\ude00y\/12 b k😀y/12"#) == "a REDACTED b REDACTED")
        // Near misses stay: a different escaped character, or a cut-off escape.
        #expect(Redactor.redacting(["TOK/PART"], in: #"TOK\/PARX TOK\u002"#) == #"TOK\/PARX TOK\u002"#)
    }

    @Test("an answer's shown text redacts the escaped form of the request's credentials")
    func responseShown() {
        var response = TransferResponse(status: 401, body: #"{"token":"TOK\/PART+TWO="}"#)
        response.credentials = ["TOK/PART+TWO="]
        #expect(response.shown(response.body) == #"{"token":"REDACTED"}"#)
    }
}
