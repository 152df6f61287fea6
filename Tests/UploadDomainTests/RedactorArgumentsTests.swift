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
        for name in ["api_key", "password", "access-token", "X-Amz-Signature", "album", "note"] {
            #expect(Redactor.isSecretField(name) == Redactor.isSecretParameter(name), "\(name)")
        }
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
