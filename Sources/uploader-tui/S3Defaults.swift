import Foundation
import UploadData
import UploaderCLI

/// Where an S3 endpoint and region come from when no option names them, as with the aws CLI: the environment, else
/// the profile's settings in `~/.aws/config`. Each with its source, for messages and `config show`.
struct S3Defaults {
    /// `$HOME`, not the passwd entry, as the aws CLI (sudo, containers and CI set HOME elsewhere).
    let home: String
    let environment: [String: String]
    let config: AWSConfigFile

    init(environment: [String: String]) {
        self.environment = environment
        home = ConfigLocation.home(environment)
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
        let path = ConfigLocation.shown(config.path, environment: environment)
        return config.profile == "default" ? "\(path) [default]" : "\(path) [profile \(config.profile)]"
    }
}
