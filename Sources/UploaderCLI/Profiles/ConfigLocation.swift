import Foundation
import UploadDomain

/// Where the profiles file lives, following the XDG base directory spec as the journal does.
public enum ConfigLocation {
    /// `$XDG_CONFIG_HOME/uploader-tui/config.toml` when that is an absolute path, else
    /// `$HOME/.config/uploader-tui/config.toml`.
    public static func defaultPath(environment: [String: String]) -> String {
        // The spec says a relative XDG path is invalid and must be ignored.
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/uploader-tui/config.toml"
        }
        return home(environment) + "/.config/uploader-tui/config.toml"
    }

    /// `path` with the home folder written `~` and control characters escaped, as messages show it.
    public static func shown(_ path: String, environment: [String: String]) -> String {
        let home = home(environment)
        guard home.count > 1, path.hasPrefix(home + "/") else { return Sanitizer.displayName(path) }
        return "~" + Sanitizer.displayName(String(path.dropFirst(home.count)))
    }

    /// `$HOME` when set, else the passwd entry's: sudo, containers and CI set HOME elsewhere.
    public static func home(_ environment: [String: String]) -> String {
        HomePath.home(environment, passwd: NSHomeDirectory)
    }

    /// A path setting (`--config`, `--log-file`, `--cacert`, …) with a leading `~` expanded from `home`.
    public static func expanding(_ path: String, environment: [String: String]) -> String {
        HomePath.expanding(path, home: home(environment))
    }
}
