import Testing

@testable import UploadData

@Suite("S3Location")
struct S3LocationTests {
    @Test(
        "bucket and prefix",
        arguments: [
            ("s3://my-bucket", "my-bucket", ""),
            ("s3://my-bucket/", "my-bucket", ""),
            ("s3://my.bucket-1/photos/2024/", "my.bucket-1", "photos/2024/"),
            ("S3://abc/a b/ü+=.txt", "abc", "a b/ü+=.txt"),
            ("s3://abc//double", "abc", "/double"),
        ])
    func parses(url: String, bucket: String, prefix: String) throws {
        let location = try S3Location(url: url)
        #expect(location.bucket == bucket)
        #expect(location.prefix == prefix)
    }

    @Test(
        "bad URLs are rejected with a reason",
        arguments: [
            ("s3://", S3Error.Code.invalidS3URL),
            ("s3:///x", .invalidS3URL),
            ("http://x", .invalidS3URL),
            ("bucket/key", .invalidS3URL),
            ("s3://My-Bucket/x", .invalidBucketName),
            ("s3://my_bucket", .invalidBucketName),
            ("s3://ab", .invalidBucketName),
            ("s3://" + String(repeating: "a", count: 64), .invalidBucketName),
            ("s3://-abc", .invalidBucketName),
            ("s3://abc-", .invalidBucketName),
            ("s3://a..b", .invalidBucketName),
            ("s3://192.168.5.4", .invalidBucketName),
            ("s3://xn--abc", .invalidBucketName),
        ])
    func rejects(url: String, code: S3Error.Code) {
        do {
            _ = try S3Location(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.code == code)
            #expect(error.description.hasPrefix(url + ": "))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("error messages say how to fix it")
    func messages() throws {
        let http = #expect(throws: S3Error.self) { try S3Location(url: "http://x") }
        #expect(http?.description.contains("--endpoint-url") == true)
        let upper = #expect(throws: S3Error.self) { try S3Location(url: "s3://My_Bucket") }
        #expect(upper?.description.contains("lowercase") == true)
    }

    @Test("keys join the prefix as a folder")
    func keys() throws {
        #expect(try S3Location(url: "s3://abc").key(for: "a/b.jpg") == "a/b.jpg")
        #expect(try S3Location(url: "s3://abc/photos").key(for: "b.jpg") == "photos/b.jpg")
        #expect(try S3Location(url: "s3://abc/photos/").key(for: "b.jpg") == "photos/b.jpg")
        #expect(try S3Location(url: "s3://abc/photos/").url == "s3://abc/photos/")
    }
}
