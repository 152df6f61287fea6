import Testing

@testable import UploadDomain

@Suite("Redactor: -H and -F arguments")
struct RedactorArgumentsTests {
    @Test("a refused -H names the header and masks a credential's value, whatever the line holds")
    func maskedHeader() {
        #expect(Redactor.maskedHeader("Authorization: Bearer HDRSECRET\r") == "Authorization: ****")
        #expect(Redactor.maskedHeader("Cookie: sid=HDRSECRET") == "Cookie: ****")
        #expect(Redactor.maskedHeader("X-Api-Key:HDRSECRET\n") == "X-Api-Key: ****")
        // No colon: the first word stays when it names a secret header, else the line may be a bare token.
        #expect(Redactor.maskedHeader("Authorization Bearer HDRSECRET") == "Authorization ****")
        #expect(Redactor.maskedHeader("Bearer HDRSECRET") == "****")
        #expect(Redactor.maskedHeader("Bad Name: HDRSECRET") == "****")
        // A second header smuggled after a line break is judged on its own, and masked to the end.
        #expect(
            Redactor.maskedHeader("X-Team: pets\r\nAuthorization: Bearer HDRSECRET\r\nX-More: 1")
                == "X-Team: pets\r\nAuthorization: ****")
        #expect(Redactor.maskedHeader("X-Team: pets\r") == "X-Team: pets\r")
        #expect(Redactor.maskedHeader("Idempotency-Key: k") == "Idempotency-Key: k")
    }

    @Test("a form field is secret by the names a URL query's are: api_key, password, token…")
    func maskedField() {
        #expect(Redactor.maskedField("api_key=FORMSECRET") == "api_key=****")
        #expect(Redactor.maskedField("password=FORMPASS") == "password=****")
        #expect(Redactor.maskedField("album=pets") == "album=pets")
        #expect(Redactor.url("http://h/p?api_key=FORMSECRET").contains("REDACTED"))
    }

    @Test("a form's secret fields are among the credentials an echoing answer is redacted of")
    func formCredentials() {
        let item = UploadItem(id: 0, path: "/p/a", relativePath: "a", size: 1, modified: 0, contentType: "text/plain")
        let fields = [
            FormField(name: "api_key", value: "FORMSECRET"), FormField(name: "password", value: "FORMPASS"),
            FormField(name: "album", value: "pets-album"),
        ]
        let request = TransferRequest(
            method: .post, url: "http://h/up", headers: [], bearerToken: nil,
            body: .multipart(fields: fields, fileField: "file", files: [item]))
        #expect(request.credentials == ["FORMSECRET", "FORMPASS"])
        var response = TransferResponse(status: 401, body: "bad key FORMSECRET or FORMPASS for pets-album")
        response.credentials = request.credentials
        #expect(response.shown(response.body) == "bad key REDACTED or REDACTED for pets-album")
    }
}

@Suite("Redactor: one name rule for headers, query parameters and fields")
struct RedactorNameRuleTests {
    static let secretNames = [
        "Authorization", "Proxy-Authorization", "Cookie", "X-Authorization", "X-Signature", "X-Request-Sig",
        "X-Jwt-Assertion", "X-Pass", "X-Pwd", "X-Api-Key", "X-Auth-Token", "X-Session-Id", "X-Client-Secret",
        "X-Credential", "x-amz-security-token", "x-amz-server-side-encryption-customer-key",
    ]
    static let harmlessNames = [
        "Content-Type", "Cache-Control", "Accept", "Accept-Encoding", "User-Agent", "Content-Disposition",
        "Content-Language", "x-amz-meta-owner", "x-amz-acl", "x-amz-storage-class", "x-amz-server-side-encryption",
        "x-amz-server-side-encryption-customer-algorithm", "Idempotency-Key", "If-Match", "X-Request-Id",
    ]

    @Test("a header is secret exactly when a query parameter or a form field of its name is", arguments: secretNames)
    func secretHeader(name: String) {
        #expect(Redactor.isSecretName(name))
        #expect(Redactor.maskedHeader("\(name): Bearer VALUE1234") == "\(name): ****")
        #expect(Redactor.maskedField("\(name)=VALUE1234") == "\(name)=****")
        #expect(!Redactor.url("http://h/p?\(name)=VALUE1234").contains("VALUE1234"))
    }

    @Test("harmless headers stay shown, in the header and in the query", arguments: harmlessNames)
    func harmlessHeader(name: String) {
        #expect(!Redactor.isSecretName(name))
        #expect(Redactor.maskedHeader("\(name): value") == "\(name): value")
        #expect(Redactor.maskedField("\(name)=value") == "\(name)=value")
        #expect(Redactor.url("http://h/p?\(name)=value") == "http://h/p?\(name)=value")
    }

    @Test("a secret header of the wider rule is among the credentials an answer is redacted of")
    func widerHeaderCredentials() {
        let request = TransferRequest(
            method: .put, url: "http://h/p",
            headers: [HTTPHeader(name: "X-Authorization", value: "Bearer XAUTH-9")!],
            bearerToken: nil, body: .none)
        #expect(request.credentials == ["Bearer XAUTH-9", "XAUTH-9"])
    }
}
