import Foundation
import Testing

@testable import UploadData

@Suite("SigV4Signer")
struct SigV4SignerTests {
    static let suiteCredentials = AWSCredentials(
        accessKeyID: SigV4TestSuite.accessKeyID, secretAccessKey: SigV4TestSuite.secretAccessKey)
    static let suiteSigner = SigV4Signer(credentials: suiteCredentials, region: "us-east-1", service: "service")
    static let suiteDate = Date(timeIntervalSince1970: TimeInterval(SigV4TestSuite.epochSeconds))

    static let s3Signer = SigV4Signer(
        credentials: AWSCredentials(
            accessKeyID: S3SigningExamples.accessKeyID, secretAccessKey: S3SigningExamples.secretAccessKey),
        region: "us-east-1")
    static let s3Date = Date(timeIntervalSince1970: TimeInterval(S3SigningExamples.epochSeconds))

    // MARK: - AWS SigV4 test suite

    @Test("AWS SigV4 test suite vector", arguments: SigV4TestSuite.vectors)
    func suiteVector(_ vector: SuiteVector) {
        let request = ParsedRequest(vector.req)
        let payloadHash = SigV4Signer.payloadHash(of: Array(request.body.utf8))
        let signer = Self.suiteSigner

        let creq = signer.canonicalRequest(
            method: request.method, url: request.url, headers: request.headers, payloadHash: payloadHash)
        #expect(creq == vector.creq)
        #expect(signer.stringToSign(canonicalRequest: creq, date: Self.suiteDate) == vector.sts)

        // The token vector is what `sign` does for credentials that carry a session token.
        let token = request.headers.first { $0.0.lowercased() == "x-amz-security-token" }?.1
        let tokenSigner = SigV4Signer(
            credentials: AWSCredentials(
                accessKeyID: SigV4TestSuite.accessKeyID, secretAccessKey: SigV4TestSuite.secretAccessKey,
                sessionToken: token),
            region: "us-east-1", service: "service")
        let added = tokenSigner.sign(
            method: request.method, url: request.url, headers: request.headers, payloadHash: payloadHash,
            date: Self.suiteDate)
        #expect(value(added, "Authorization") == vector.authz)
        #expect(value(added, "x-amz-date") == "20150830T123600Z")
        #expect(value(added, "x-amz-content-sha256") == nil, "only S3 gets x-amz-content-sha256")
        #expect(value(added, "x-amz-security-token") == token)
    }

    @Test("post-sts-header-after: sign without the token, add it afterwards")
    func stsHeaderAfter() {
        let vector = SigV4TestSuite.stsHeaderAfter
        let request = ParsedRequest(vector.req)
        let signer = Self.suiteSigner
        let creq = signer.canonicalRequest(
            method: request.method, url: request.url, headers: request.headers,
            payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(creq == vector.creq)
        #expect(signer.stringToSign(canonicalRequest: creq, date: Self.suiteDate) == vector.sts)
        let added = signer.sign(
            method: request.method, url: request.url, headers: request.headers,
            payloadHash: SigV4Signer.emptyPayloadHash, date: Self.suiteDate)
        #expect(value(added, "Authorization") == vector.authz)
    }

    // MARK: - S3 API reference examples

    @Test("S3 signing example", arguments: S3SigningExamples.examples)
    func s3Example(_ example: SuiteVector) throws {
        let request = ParsedRequest(example.req)
        let payloadHash = try #require(value(request.headers, "x-amz-content-sha256"))
            .trimmingCharacters(in: .whitespaces)
        #expect(payloadHash == SigV4Signer.payloadHash(of: Array(request.body.utf8)))
        let signer = Self.s3Signer

        let creq = signer.canonicalRequest(
            method: request.method, url: request.url, headers: request.headers, payloadHash: payloadHash)
        #expect(creq == example.creq)
        #expect(signer.stringToSign(canonicalRequest: creq, date: Self.s3Date) == example.sts)

        // `sign` supplies x-amz-date and x-amz-content-sha256 itself.
        let others = request.headers.filter {
            !["x-amz-date", "x-amz-content-sha256"].contains($0.0.lowercased())
        }
        let added = signer.sign(
            method: request.method, url: request.url, headers: others, payloadHash: payloadHash, date: Self.s3Date)
        // The S3 guide prints the components joined by "," where the SDKs (and this signer) write ", ";
        // S3 accepts both, so the components are compared one by one.
        let authorization = try #require(value(added, "Authorization"))
        #expect(authorizationComponents(authorization) == authorizationComponents(example.authz))
        #expect(authorization.hasSuffix(String(example.authz.suffix(64))))
        #expect(value(added, "x-amz-date") == "20130524T000000Z")
        #expect(value(added, "x-amz-content-sha256") == payloadHash)
    }

    @Test("S3 presigned URL example")
    func presignedURL() {
        let url = Self.s3Signer.presign(
            method: "GET", url: "https://examplebucket.s3.amazonaws.com/test.txt", expires: 86_400, date: Self.s3Date)
        #expect(url == S3SigningExamples.presignedURL)
    }

    @Test("presigning keeps and signs the URL's own query, and the session token")
    func presignWithQueryAndToken() {
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: "to/ken+="),
            region: "eu-west-1")
        let url = signer.presign(
            method: "PUT", url: "https://b.s3.eu-west-1.amazonaws.com/a%20b.txt?uploadId=x%2By&partNumber=2",
            expires: 10_000_000, date: Self.s3Date)
        #expect(
            url.hasPrefix(
                "https://b.s3.eu-west-1.amazonaws.com/a%20b.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                    + "&X-Amz-Credential=AKID%2F20130524%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z"
                    + "&X-Amz-Expires=604800&X-Amz-Security-Token=to%2Fken%2B%3D&X-Amz-SignedHeaders=host"
                    + "&partNumber=2&uploadId=x%2By&X-Amz-Signature="))
    }

    // MARK: - Canonicalisation rules

    @Test("S3 encodes the path once and keeps it as is; other services normalise and encode twice")
    func pathRules() {
        let credentials = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret")
        let s3 = SigV4Signer(credentials: credentials, region: "us-east-1")
        let generic = SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")
        let url = "https://b.example.com/a%20b//./c%2Bd/../ü e"
        #expect(canonicalURI(s3, url) == "/a%20b//./c%2Bd/../%C3%BC%20e")
        #expect(canonicalURI(generic, url) == "/a%2520b/%C3%BC%20e")
        #expect(canonicalURI(s3, "https://b.example.com") == "/")
        #expect(canonicalURI(s3, "https://b.example.com/dir/") == "/dir/")
        #expect(canonicalURI(s3, "https://b.example.com/%7e%2a") == "/~%2A")
    }

    @Test("query items: decoded, re-encoded, sorted; bare names get '='")
    func queryRules() {
        let creq = Self.s3Signer.canonicalRequest(
            method: "post", url: "https://b.example.com/k?uploads&b=2&a=%2F+x&a=1&&b=", headers: [],
            payloadHash: SigV4Signer.unsignedPayload)
        #expect(creq.split(separator: "\n", omittingEmptySubsequences: false)[0] == "POST")
        #expect(creq.split(separator: "\n", omittingEmptySubsequences: false)[2] == "a=%2F%2Bx&a=1&b=&b=2&uploads=")
    }

    @Test("Host comes from the URL, without a default port")
    func hostHeader() {
        func host(_ url: String) -> Substring? {
            Self.s3Signer.canonicalRequest(method: "GET", url: url, headers: [], payloadHash: "x")
                .split(separator: "\n").first { $0.hasPrefix("host:") }
        }
        #expect(host("http://localhost:9000/b/k") == "host:localhost:9000")
        #expect(host("https://user:pw@h.example:443/k") == "host:h.example")
        #expect(host("http://h.example:80/k") == "host:h.example")
        #expect(host("https://[::1]:8443/k") == "host:[::1]:8443")
        let explicit = Self.s3Signer.canonicalRequest(
            method: "GET", url: "http://localhost:9000/k", headers: [("Host", "proxy.example")], payloadHash: "x")
        #expect(explicit.contains("\nhost:proxy.example\n"))
    }

    @Test("sign replaces the caller's Authorization and x-amz-* headers and signs the session token")
    func signReplacesItsOwnHeaders() throws {
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: "TOKEN"),
            region: "us-east-1")
        let added = signer.sign(
            method: "PUT", url: "https://b.s3.amazonaws.com/k",
            headers: [
                ("Authorization", "stale"), ("X-Amz-Date", "19990101T000000Z"), ("Content-Type", "text/plain"),
                ("x-amz-security-token", "OLD"),
            ],
            payloadHash: SigV4Signer.unsignedPayload, date: Self.s3Date)
        #expect(added.map(\.0) == ["Authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"])
        #expect(value(added, "x-amz-content-sha256") == "UNSIGNED-PAYLOAD")
        #expect(value(added, "x-amz-security-token") == "TOKEN")
        let authorization = try #require(value(added, "Authorization"))
        #expect(
            authorization.contains(
                "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="))
    }

    @Test(
        "signing times are formatted in UTC from the epoch",
        arguments: [
            (0.0, "19700101T000000Z"), (951_782_400, "20000229T000000Z"), (1_440_938_160.999, "20150830T123600Z"),
            (4_102_444_799, "20991231T235959Z"), (-1, "19691231T235959Z"),
        ])
    func amzDate(seconds: Double, expected: String) {
        let date = AmzDate(Date(timeIntervalSince1970: seconds))
        #expect(date.timestamp == expected)
        #expect(date.day == String(expected.prefix(8)))
    }

    @Test("descriptions never show the secret key or token")
    func redaction() {
        let credentials = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "SECRETKEY", sessionToken: "TOKENVALUE")
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1")
        var dumped = ""
        dump(credentials, to: &dumped)
        var dumpedSigner = ""
        dump(signer, to: &dumpedSigner)
        for text in [
            "\(credentials)", String(reflecting: credentials), dumped, "\(signer)", String(reflecting: signer),
            dumpedSigner, "\([credentials])",
        ] {
            #expect(!text.contains("SECRETKEY"), "\(text)")
            #expect(!text.contains("TOKENVALUE"), "\(text)")
        }
        #expect("\(credentials)".contains("AKID"))
    }

    // MARK: - Helpers

    private func value(_ headers: [(String, String)], _ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    private func canonicalURI(_ signer: SigV4Signer, _ url: String) -> Substring {
        signer.canonicalRequest(method: "GET", url: url, headers: [], payloadHash: "x")
            .split(separator: "\n", omittingEmptySubsequences: false)[1]
    }

    /// `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` as its algorithm and three parts.
    private func authorizationComponents(_ header: String) -> [String] {
        let space = header.firstIndex(of: " ")!
        return [String(header[..<space])]
            + header[header.index(after: space)...].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
    }
}
