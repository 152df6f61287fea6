import ArgumentParser
import Foundation
import UploadData

/// The S3 options `upload` and `delete` share.
struct S3Options: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "S3-compatible endpoint for s3:// URLs (MinIO, moto, …); default: $AWS_ENDPOINT_URL_S3, "
                + "$AWS_ENDPOINT_URL, else the profile's endpoint_url.",
            valueName: "url"))
    var endpointURL: String?

    @Option(help: "S3 region (default: $AWS_REGION, $AWS_DEFAULT_REGION, the profile's region, else us-east-1).")
    var region: String?

    @Flag(
        inversion: .prefixedNo, help: "Address S3 buckets in the path (endpoint/bucket/key) instead of the host name.")
    var pathStyle = false

    /// Location, endpoint and credentials, each checked before anything is sent.
    func planner(for url: String, multipartThreshold: Int64, partSize: Int64, partConcurrency: Int) throws -> S3Planner
    {
        let environment = ProcessInfo.processInfo.environment
        let location: S3Location
        do {
            location = try S3Location(url: url)
        } catch {
            throw UsageError(description: "--to: \(error)")
        }
        let defaults = S3Defaults(environment: environment)
        let endpoint = endpointURL.map { (value: $0, source: "--endpoint-url") } ?? defaults.endpoint
        if let endpoint { _ = try UploadCommand.validate(url: endpoint.value, option: endpoint.source) }
        let home = defaults.home
        let credentials: AWSCredentials?
        do {
            credentials = try AWSCredentials.resolve(environment: environment, home: home)
        } catch {
            throw UsageError(description: "AWS credentials: \(error)")
        }
        guard let credentials else {
            throw UsageError(
                description: "no AWS credentials for \(url): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                    + "or a profile in ~/.aws/credentials or ~/.aws/config (AWS_PROFILE)")
        }
        let region = self.region ?? defaults.region?.value ?? "us-east-1"
        return S3Planner(
            location: location,
            endpoint: S3Endpoint(endpointURL: endpoint?.value, region: region, pathStyle: pathStyle),
            signer: SigV4Signer(credentials: credentials, region: region), multipartThreshold: multipartThreshold,
            partSize: partSize, partConcurrency: partConcurrency)
    }
}

/// Where an S3 endpoint and region come from when no option names them, as with the aws CLI: the environment, else
/// the profile's settings in `~/.aws/config`. Each with its source, for messages and `config show`.
struct S3Defaults {
    /// `$HOME`, not the passwd entry, as the aws CLI (sudo, containers and CI set HOME elsewhere).
    let home: String
    let environment: [String: String]
    let config: AWSConfigFile

    init(environment: [String: String]) {
        self.environment = environment
        home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        config = AWSConfigFile(environment: environment, home: home)
    }

    /// `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, else the profile's `endpoint_url`.
    var endpoint: (value: String, source: String)? {
        fromEnvironment("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
            ?? config.endpointURL.map { ($0, "endpoint_url in \(shownConfigPath)") }
    }

    /// `AWS_REGION`, `AWS_DEFAULT_REGION`, else the profile's `region`.
    var region: (value: String, source: String)? {
        fromEnvironment("AWS_REGION", "AWS_DEFAULT_REGION")
            ?? config.region.map { ($0, "region in \(shownConfigPath)") }
    }

    private func fromEnvironment(_ names: String...) -> (value: String, source: String)? {
        names.lazy.compactMap { name in environment[name].flatMap { $0.isEmpty ? nil : ($0, "$" + name) } }.first
    }

    /// `~/.aws/config [profile work]`, or `[default]`: the section read.
    private var shownConfigPath: String {
        let path =
            config.path.hasPrefix(home + "/") && home.count > 1 ? "~" + config.path.dropFirst(home.count) : config.path
        return config.profile == "default" ? "\(path) [default]" : "\(path) [profile \(config.profile)]"
    }
}
