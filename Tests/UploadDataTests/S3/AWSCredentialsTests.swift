import Foundation
import Testing

@testable import UploadData

@Suite("AWSCredentials")
struct AWSCredentialsTests {
    static let twoProfiles = """
        # comment
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = defaultSecret

        ; another comment
        [work]
        AWS_ACCESS_KEY_ID=AKIAWORK
        aws_secret_access_key=work/Secret+1=
        aws_session_token = workToken

        [broken]
        aws_access_key_id = AKIAONLY
        """

    /// A temporary home folder holding `.aws/credentials` with `text`; removed after `body`.
    private func withHome<T>(credentials text: String?, _ body: (String) throws -> T) throws -> T {
        let home = FileManager.default.temporaryDirectory
            .appendingPathComponent("uploader-tui-creds-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        if let text { try text.write(toFile: home + "/.aws/credentials", atomically: true, encoding: .utf8) }
        return try body(home)
    }

    @Test("environment variables win over the credentials file")
    func fromEnvironment() throws {
        try withHome(credentials: Self.twoProfiles) { home throws in
            let env = [
                "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "envSecret", "AWS_SESSION_TOKEN": "tok",
            ]
            let credentials = try AWSCredentials.resolve(environment: env, home: home)
            #expect(
                credentials == AWSCredentials(accessKeyID: "AKIAENV", secretAccessKey: "envSecret", sessionToken: "tok")
            )
            let noToken = try AWSCredentials.resolve(
                environment: [
                    "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "envSecret", "AWS_SESSION_TOKEN": "",
                ],
                home: home)
            #expect(noToken?.sessionToken == nil)
        }
    }

    @Test("half a key pair in the environment is an error")
    func halfPair() throws {
        #expect(throws: S3Error.self) {
            try AWSCredentials.resolve(environment: ["AWS_ACCESS_KEY_ID": "AKIAENV"], home: "/nonexistent")
        }
        do {
            _ = try AWSCredentials.resolve(environment: ["AWS_SECRET_ACCESS_KEY": "s"], home: "/nonexistent")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .incompleteCredentials)
            #expect(!error.description.contains("s\""))
        }
    }

    @Test("the default profile, or the one AWS_PROFILE names")
    func fromFile() throws {
        try withHome(credentials: Self.twoProfiles) { home throws in
            #expect(
                try AWSCredentials.resolve(environment: [:], home: home)
                    == AWSCredentials(accessKeyID: "AKIADEFAULT", secretAccessKey: "defaultSecret"))
            #expect(
                try AWSCredentials.resolve(environment: ["AWS_PROFILE": "work"], home: home)
                    == AWSCredentials(
                        accessKeyID: "AKIAWORK", secretAccessKey: "work/Secret+1=", sessionToken: "workToken"))
        }
    }

    @Test("AWS_SHARED_CREDENTIALS_FILE overrides the path")
    func overriddenPath() throws {
        try withHome(credentials: nil) { home throws in
            let path = home + "/elsewhere.ini"
            try Self.twoProfiles.write(toFile: path, atomically: true, encoding: .utf8)
            let credentials = try AWSCredentials.resolve(
                environment: ["AWS_SHARED_CREDENTIALS_FILE": path, "AWS_PROFILE": "work"], home: home)
            #expect(credentials?.accessKeyID == "AKIAWORK")
            #expect(try AWSCredentials.resolve(environment: [:], home: home) == nil)
            let tilde = try AWSCredentials.resolve(
                environment: ["AWS_SHARED_CREDENTIALS_FILE": "~/elsewhere.ini"], home: home)
            #expect(tilde?.accessKeyID == "AKIADEFAULT")
        }
    }

    @Test("nothing configured is nil; a named profile that is missing is an error")
    func missing() throws {
        try withHome(credentials: nil) { home throws in
            #expect(try AWSCredentials.resolve(environment: [:], home: home) == nil)
            #expect(throws: S3Error.self) {
                try AWSCredentials.resolve(environment: ["AWS_PROFILE": "work"], home: home)
            }
        }
        try withHome(credentials: "[other]\naws_access_key_id=a\naws_secret_access_key=b\n") { home throws in
            #expect(try AWSCredentials.resolve(environment: [:], home: home) == nil)
            do {
                _ = try AWSCredentials.resolve(environment: ["AWS_PROFILE": "nope"], home: home)
                Issue.record("expected an error")
            } catch let error as S3Error {
                #expect(error.code == .profileNotFound)
                #expect(error.description.contains("[nope]"))
                #expect(error.description.contains(".aws/credentials"))
            }
        }
    }

    @Test("a profile only in ~/.aws/config gives its keys, region and endpoint_url, as with the aws CLI")
    func fromConfigFile() throws {
        let config = """
            [default]
            region = eu-west-1

            [profile staging]
            aws_access_key_id = AKIASTAGING
            aws_secret_access_key = stagingSecret
            region = eu-central-1
            endpoint_url = http://127.0.0.1:9000
            """
        try withHome(credentials: Self.twoProfiles) { home throws in
            try config.write(toFile: home + "/.aws/config", atomically: true, encoding: .utf8)
            let staging = ["AWS_PROFILE": "staging"]
            let credentials = try AWSCredentials.resolve(environment: staging, home: home)
            #expect(credentials?.accessKeyID == "AKIASTAGING")
            let settings = AWSConfigFile(environment: staging, home: home)
            #expect(settings.region == "eu-central-1")
            #expect(settings.endpointURL == "http://127.0.0.1:9000")
            // The credentials file's profile wins; the config's default profile is `[default]`, not `[profile …]`.
            #expect(try AWSCredentials.resolve(environment: [:], home: home)?.accessKeyID == "AKIADEFAULT")
            #expect(AWSConfigFile(environment: [:], home: home).region == "eu-west-1")
            #expect(AWSConfigFile(environment: ["AWS_PROFILE": "work"], home: home).region == nil)
        }
    }

    @Test("CRLF line endings and a byte-order mark are tolerated")
    func windowsFile() throws {
        let text = "\u{FEFF}[default]\r\naws_access_key_id = AKIAWIN\r\naws_secret_access_key = winSecret\r\n"
        try withHome(credentials: text) { home throws in
            let credentials = try AWSCredentials.resolve(environment: [:], home: home)
            #expect(credentials == AWSCredentials(accessKeyID: "AKIAWIN", secretAccessKey: "winSecret"))
        }
    }

    @Test("a profile without its secret is an error naming the file and profile")
    func incompleteProfile() throws {
        try withHome(credentials: Self.twoProfiles) { home throws in
            do {
                _ = try AWSCredentials.resolve(environment: ["AWS_PROFILE": "broken"], home: home)
                Issue.record("expected an error")
            } catch let error as S3Error {
                #expect(error.code == .incompleteCredentials)
                #expect(error.description.contains("[broken]"))
                #expect(!error.description.contains("AKIAONLY"))
            }
        }
    }
}
