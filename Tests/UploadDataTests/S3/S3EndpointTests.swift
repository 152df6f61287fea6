import Testing
import UploadDomain

@testable import UploadData

@Suite("S3Endpoint")
struct S3EndpointTests {
    @Test("AWS: virtual-hosted by default, path style on request")
    func aws() {
        let virtual = S3Endpoint(endpointURL: nil, region: "eu-west-1", pathStyle: false)
        #expect(virtual.objectURL(bucket: "bkt", key: "a/b.txt") == "https://bkt.s3.eu-west-1.amazonaws.com/a/b.txt")
        #expect(virtual.objectURL(bucket: "bkt", key: "") == "https://bkt.s3.eu-west-1.amazonaws.com/")
        let path = S3Endpoint(endpointURL: nil, region: "eu-west-1", pathStyle: true)
        #expect(path.objectURL(bucket: "bkt", key: "a/b.txt") == "https://s3.eu-west-1.amazonaws.com/bkt/a/b.txt")
        #expect(
            path.objectURL(bucket: "bkt", key: "", query: [("list-type", "2"), ("prefix", "a b/")])
                == "https://s3.eu-west-1.amazonaws.com/bkt?list-type=2&prefix=a%20b%2F")
        #expect(
            S3Endpoint(endpointURL: nil, region: "cn-north-1", pathStyle: false).objectURL(bucket: "bkt", key: "k")
                == "https://bkt.s3.cn-north-1.amazonaws.com.cn/k")
    }

    @Test("a dotted bucket over HTTPS falls back to path style")
    func dottedBucket() {
        let endpoint = S3Endpoint(endpointURL: nil, region: "us-east-1", pathStyle: false)
        #expect(endpoint.objectURL(bucket: "my.bucket", key: "k") == "https://s3.us-east-1.amazonaws.com/my.bucket/k")
    }

    @Test("custom endpoints")
    func custom() {
        let minio = S3Endpoint(endpointURL: "http://localhost:9000/", region: "us-east-1", pathStyle: false)
        #expect(
            minio.objectURL(bucket: "bkt", key: "k") == "http://localhost:9000/bkt/k",
            "localhost has no DNS for bkt.localhost")
        let ip = S3Endpoint(endpointURL: "http://127.0.0.1:9000", region: "us-east-1", pathStyle: false)
        #expect(ip.objectURL(bucket: "bkt", key: "k") == "http://127.0.0.1:9000/bkt/k")
        let hosted = S3Endpoint(endpointURL: "https://storage.example.com", region: "auto", pathStyle: false)
        #expect(hosted.objectURL(bucket: "bkt", key: "k") == "https://bkt.storage.example.com/k")
        let forced = S3Endpoint(endpointURL: "https://storage.example.com:8443/base/", region: "auto", pathStyle: true)
        #expect(
            forced.objectURL(bucket: "bkt", key: "k", query: [("uploads", "")])
                == "https://storage.example.com:8443/base/bkt/k?uploads")
        let defaultPort = S3Endpoint(endpointURL: "https://storage.example.com:443", region: "auto", pathStyle: true)
        #expect(defaultPort.objectURL(bucket: "bkt", key: "k") == "https://storage.example.com/bkt/k")
    }

    @Test(
        "keys are percent-encoded for the path, '/' kept",
        arguments: [
            ("plain/key.txt", "plain/key.txt"),
            ("my file.txt", "my%20file.txt"),
            ("a+b=c&d.txt", "a%2Bb%3Dc%26d.txt"),
            ("fotos/ü-日本.jpg", "fotos/%C3%BC-%E6%97%A5%E6%9C%AC.jpg"),
            ("-._~", "-._~"),
            ("100%?#[]", "100%25%3F%23%5B%5D"),
            ("a//b", "a//b"),
        ])
    func keyEncoding(key: String, encoded: String) {
        #expect(S3Endpoint.encodeKey(key) == encoded)
        let endpoint = S3Endpoint(endpointURL: nil, region: "us-east-1", pathStyle: true)
        #expect(endpoint.objectURL(bucket: "bkt", key: key) == "https://s3.us-east-1.amazonaws.com/bkt/" + encoded)
    }

    @Test("a key's URL signs with the key encoded exactly once")
    func signsEncodedKeyOnce() {
        let endpoint = S3Endpoint(endpointURL: nil, region: "us-east-1", pathStyle: false)
        let url = endpoint.objectURL(bucket: "bkt", key: "a b+c=ü.txt")
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "A", secretAccessKey: "S"), region: "us-east-1")
        let creq = signer.canonicalRequest(method: "PUT", url: url, headers: [], payloadHash: "UNSIGNED-PAYLOAD")
        #expect(creq.split(separator: "\n")[1] == "/a%20b%2Bc%3D%C3%BC.txt")
        #expect(creq.contains("\nhost:bkt.s3.us-east-1.amazonaws.com\n"))
    }

    @Test("the journal tells the same bucket and key on two endpoints apart, and keeps no secret of either")
    func journalDestination() throws {
        func planner(_ endpoint: String?) throws -> S3Planner {
            S3Planner(
                location: try S3Location(url: "s3://bkt/pets/"),
                endpoint: S3Endpoint(endpointURL: endpoint, region: "us-east-1", pathStyle: false),
                signer: SigV4Signer(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "s"), region: "r"),
                multipartThreshold: .max, partSize: 5 << 20, partConcurrency: 1)
        }
        let item = UploadItem(id: 0, path: "/x/cat.jpg", relativePath: "cat.jpg", size: 1, modified: 0, contentType: "")
        let aws = try planner(nil).journalDestination(of: item)
        let staging = try planner("http://127.0.0.1:9000").journalDestination(of: item)
        let other = try planner("http://127.0.0.1:9001").journalDestination(of: item)
        #expect(aws == "s3://bkt/pets/cat.jpg")
        #expect(Set([aws, staging, other]).count == 3)
        #expect(staging.hasPrefix("s3://bkt/pets/cat.jpg at http://127.0.0.1:9000"))
        #expect(try planner("http://127.0.0.1:9000/").journalDestination(of: item) == staging)
        let secret = try planner("https://u:hunter2@minio.example/").journalDestination(of: item)
        #expect(!secret.contains("hunter2"), "\(secret)")
    }
}
