import Testing

@testable import UploadDomain

@Suite("Redactor: -H arguments")
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
}
