import Testing
import UploadDomain

@Suite("UploadError")
struct UploadErrorTests {
    @Test("a status reads with its reason; a redirect says it was not followed; an unusual one stays a number")
    func statusReasons() {
        func line(_ status: Int) -> String {
            UploadError(UploadError.code(forStatus: status), file: "a.jpg", httpStatus: status).description
        }
        #expect(line(429) == "a.jpg: HTTP 429 too many requests")
        #expect(line(403) == "a.jpg: HTTP 403 forbidden")
        #expect(line(307) == "a.jpg: HTTP 307 temporary redirect (not followed: give the URL it names)")
        #expect(line(404) == "a.jpg: HTTP 404 not found (check the URL)")
        #expect(line(418) == "a.jpg: HTTP 418")
    }

    @Test("a 401's hint names where the token came from, and both places when it is not known")
    func unauthorizedHint() {
        var error = UploadError(.unauthorized, file: "a.jpg", httpStatus: 401)
        #expect(error.description == "a.jpg: HTTP 401 unauthorized (check --token or UPLOADER_TOKEN)")
        error.tokenOrigin = "token of profile pets, ~/.config/uploader-tui/config.toml:3"
        #expect(
            error.description
                == "a.jpg: HTTP 401 unauthorized (check token of profile pets, ~/.config/uploader-tui/config.toml:3)")
    }
}
