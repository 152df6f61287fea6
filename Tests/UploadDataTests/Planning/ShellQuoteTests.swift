import Testing
import UploadDomain

@testable import UploadData

/// The curl command of the details pane and `y` sends what the request sent: the same merge of the user's headers
/// and ours, secrets left out.
@Suite("ShellQuote: the curl command's headers")
struct ShellQuoteTests {
    let item = UploadItem(
        id: 0, path: "/p/a.png", relativePath: "a.png", size: 1, modified: 0, contentType: "image/png")

    /// The `-H` words of `command` for header `name`, without their quotes (none of these hold a quote).
    func lines(_ name: String, in command: String) -> [String] {
        command.components(separatedBy: " -H ").dropFirst().map { word in
            guard let quote = word.first, quote == "'" || quote == "\"" else {
                return String(word.prefix { $0 != " " })
            }
            return String(word.dropFirst().prefix { $0 != quote })
        }.filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }
    }

    @Test("a user's Authorization replaces the bearer token in the command, as in the request")
    func userAuthorization() throws {
        let headers = [try #require(HTTPHeader(name: "Authorization", value: "Basic dXNlcjpwdw=="))]
        let post = MultipartPlanner(
            url: "http://h/up", fileField: "file", fields: [], headers: headers, token: "tok1", batchSize: 1
        ).curlCommand(for: item)
        let put = PutPlanner(baseURL: "http://h/files/", headers: headers, token: "tok1").curlCommand(for: item)
        for command in [post, put] {
            #expect(!command.contains("UPLOADER_TOKEN"), "\(command)")
            #expect(lines("Authorization", in: command) == ["Authorization: REDACTED"], "\(command)")
        }
        let bearer = PutPlanner(baseURL: "http://h/files/", headers: [], token: "tok1").curlCommand(for: item)
        #expect(lines("Authorization", in: bearer) == ["Authorization: Bearer $UPLOADER_TOKEN"], "\(bearer)")
    }

    @Test("one Content-Type: a PUT's is the user's; a form keeps the one -F makes; Expect as the request's")
    func userContentType() throws {
        let headers = [
            try #require(HTTPHeader(name: "Content-Type", value: "text/plain")),
            try #require(HTTPHeader(name: "Expect", value: "100-continue")),
        ]
        let put = PutPlanner(baseURL: "http://h/files/", headers: headers, token: nil).curlCommand(for: item)
        #expect(lines("Content-Type", in: put) == ["Content-Type: text/plain"], "\(put)")
        #expect(lines("Expect", in: put) == ["Expect: 100-continue"], "\(put)")
        let post = MultipartPlanner(
            url: "http://h/up", fileField: "file", fields: [], headers: headers, token: nil, batchSize: 1
        ).curlCommand(for: item)
        #expect(lines("Content-Type", in: post).isEmpty, "\(post)")
        let plain = PutPlanner(baseURL: "http://h/files/", headers: [], token: nil).curlCommand(for: item)
        #expect(lines("Content-Type", in: plain) == ["Content-Type: image/png"], "\(plain)")
        #expect(lines("Expect", in: plain) == ["Expect:"], "\(plain)")
    }

    @Test("a form field named as a secret is left out of the command, as a URL query's value is")
    func secretFields() {
        let fields = [
            FormField(name: "api_key", value: "FORMSECRET"), FormField(name: "password", value: "FORMPASS"),
            FormField(name: "album", value: "pets"),
        ]
        let command = MultipartPlanner(
            url: "http://h/up", fileField: "file", fields: fields, headers: [], token: nil, batchSize: 1
        ).curlCommand(for: item)
        #expect(!command.contains("FORMSECRET") && !command.contains("FORMPASS"), "\(command)")
        #expect(command.contains("--form-string api_key=REDACTED --form-string password=REDACTED"), "\(command)")
        #expect(command.contains("--form-string album=pets"), "\(command)")
    }

    @Test("headers named as secrets by the query's rule are left out of every command; harmless ones stay")
    func widerSecretHeaders() throws {
        let secret = ["X-Authorization", "X-Signature", "X-Request-Sig", "X-Jwt-Assertion", "X-Pass"]
        let headers =
            try secret.map { try #require(HTTPHeader(name: $0, value: "Bearer HDRSECRET-\($0)")) }
            + [try #require(HTTPHeader(name: "Cache-Control", value: "max-age=60"))]
        let put = PutPlanner(baseURL: "http://h/files/", headers: headers, token: nil).curlCommand(for: item)
        var s3 = S3Planner(
            location: try S3Location(url: "s3://bkt/"),
            endpoint: S3Endpoint(endpointURL: "http://127.0.0.1:9", region: "us-east-1", pathStyle: true),
            signer: SigV4Signer(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "s"), region: "r"),
            multipartThreshold: .max, partSize: 5 << 20, partConcurrency: 1)
        s3.userHeaders =
            headers + [try #require(HTTPHeader(name: "x-amz-server-side-encryption-customer-key", value: "SSECKEY"))]
        for command in [put, s3.curlCommand(for: item)] {
            #expect(!command.contains("HDRSECRET") && !command.contains("SSECKEY"), "\(command)")
            for name in secret { #expect(lines(name, in: command) == ["\(name): REDACTED"], "\(command)") }
            #expect(lines("Cache-Control", in: command) == ["Cache-Control: max-age=60"], "\(command)")
        }
    }
}
