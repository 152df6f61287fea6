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
