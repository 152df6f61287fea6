/// The home folder, and paths written from it with `~`, read as the shell reads them: every path setting (the
/// journal, the results, the log, the config file, TLS files), from a profile or the command line, takes this rule.
public enum HomePath {
    /// `$HOME` when set and not empty, else `passwd` (the passwd entry's): sudo, containers and CI set HOME elsewhere.
    public static func home(_ environment: [String: String], passwd: () -> String) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? passwd()
    }

    /// `path` with a leading `~` or `~/` standing for `home`; any other path, `~user/…` included, as it is.
    ///
    /// A profile's value reaches no shell, and nor does one after `=` (`--log-file=~/up.log`).
    public static func expanding(_ path: String, home: String) -> String {
        guard path.first == "~" else { return path }
        if path == "~" { return home }
        guard path.hasPrefix("~/") else { return path }
        // `home` "/" would give "//x".
        let base = home.hasSuffix("/") ? String(home.dropLast()) : home
        return base + path.dropFirst()
    }
}
