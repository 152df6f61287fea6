import Testing
import UploadDomain

@testable import UploadData

@Suite("S3XML")
struct S3XMLTests {
    @Test("values are read between their tags, entities decoded")
    func values() {
        let xml = "<Result><UploadId>a&amp;b&lt;c&gt;&quot;&apos;</UploadId></Result>"
        #expect(S3XML.value(of: "UploadId", in: xml) == "a&b<c>\"'")
        #expect(S3XML.value(of: "ETag", in: xml) == nil)
        #expect(S3XML.unescape("&amp;lt; &unknown; &amp") == "&lt; &unknown; &amp")
    }

    @Test("a combining mark after < or an entity does not hide it from escape and unescape (found by make fuzz)")
    func combiningMarks() {
        let etag = "\"<\u{35D}/ETag>&\u{301}\""
        let escaped = S3XML.escape(etag)
        #expect(!escaped.unicodeScalars.contains { $0 == "<" || $0 == ">" || $0 == "\"" })
        #expect(escaped == "&quot;&lt;\u{35D}/ETag&gt;&amp;\u{301}&quot;")
        #expect(S3XML.unescape(escaped) == etag)
        #expect(
            S3XML.completion([(1, FinishedPart(etag: etag))], algorithm: .crc32).contains(
                "<ETag>&quot;&lt;\u{35D}/ETag&gt;&amp;\u{301}&quot;</ETag></Part>"))
    }

    @Test("a completion names each part's checksum by the upload's algorithm when it was sent with one")
    func completionChecksums() {
        let parts = [(1, FinishedPart(etag: "\"a\"", checksum: "q0Y+1w==")), (2, FinishedPart(etag: "\"b\""))]
        let head = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        let second = "<Part><PartNumber>2</PartNumber><ETag>&quot;b&quot;</ETag></Part></CompleteMultipartUpload>"
        #expect(
            S3XML.completion(parts, algorithm: .crc32) == head
                + "<Part><PartNumber>1</PartNumber><ETag>&quot;a&quot;</ETag><ChecksumCRC32>q0Y+1w==</ChecksumCRC32></Part>"
                + second)
        #expect(
            S3XML.completion(parts, algorithm: .sha256) == head
                + "<Part><PartNumber>1</PartNumber><ETag>&quot;a&quot;</ETag><ChecksumSHA256>q0Y+1w==</ChecksumSHA256></Part>"
                + second)
    }

    @Test("an S3 error names S3's code and message, and a 200 with <Error> is a failure")
    func errors() throws {
        let body = "<Error><Code>SlowDown</Code><Message>Reduce &lt;rate&gt;</Message></Error>"
        let error = try #require(S3XML.error(TransferResponse(status: 503, body: body), file: "a.jpg"))
        #expect(error.bodyExcerpt == "SlowDown: Reduce <rate>")
        #expect(S3XML.error(TransferResponse(status: 200, body: "<Result/>"), file: nil) == nil)
        #expect(S3XML.error(TransferResponse(status: 200, body: body), file: nil)?.code == .serverError)
    }

    @Test("a request to the bucket's wrong region says which region to pass")
    func regionHint() {
        let body = "<Error><Code>PermanentRedirect</Code><Message>use the right endpoint</Message></Error>"
        let response = TransferResponse(status: 301, headers: ["x-amz-bucket-region": "eu-west-1"], body: body)
        let error = S3XML.error(response, file: "a.jpg")
        #expect(
            error?.bodyExcerpt
                == "PermanentRedirect: use the right endpoint — the bucket is in eu-west-1: pass --region eu-west-1")
    }
}
