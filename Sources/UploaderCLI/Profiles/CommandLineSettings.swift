/// The settings a command line gives itself, and its `-p`/`--config`, read before ArgumentParser parses it so the
/// profile's settings can be put in front of it (see `EffectiveSettings`).
public struct CommandLineSettings: Sendable, Equatable {
    /// `-p NAME` / `--profile NAME`.
    public var profile: String?
    /// `--config PATH`.
    public var configPath: String?
    /// Each key the command line sets, with the last value given (every value for repeatable options); a flag
    /// switched off (`--no-verify`, `--resume`) is `.flag(false)`.
    public var values: [String: SettingValue] = [:]

    /// Options that are not settings but take a value, so it is not read as a path.
    private static let otherValueOptions: Set<String> = ["from"]

    /// Reads `arguments` (those after the subcommand's name); anything unknown is left for ArgumentParser to judge.
    public init(arguments: [String]) {
        var index = 0
        func nextValue(attached: String?) -> String? {
            if let attached { return attached }
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let attached = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                switch name {
                case "profile": profile = nextValue(attached: attached)
                case "config": configPath = nextValue(attached: attached)
                default:
                    if let key = ProfileKey.forLong(name) {
                        set(key, nextValue(attached: key.kind == .flag ? "" : attached))
                    } else if let key = ProfileKey.forInverse(name) {
                        values[key.name] = .flag(false)
                    } else if Self.otherValueOptions.contains(name), attached == nil {
                        index += 1
                    }
                }
            } else if argument.hasPrefix("-"), argument.count > 1, Double(argument) == nil {
                // Short options, possibly bundled (`-rL`), the last of which may take the rest or the next argument.
                var rest = argument.dropFirst()
                while let short = rest.first {
                    rest = rest.dropFirst()
                    if short == "p" {
                        profile = nextValue(attached: rest.isEmpty ? nil : String(rest))
                        break
                    }
                    guard let key = ProfileKey.forShort(short) else { continue }
                    if key.kind == .flag {
                        set(key, "")
                    } else {
                        set(key, nextValue(attached: rest.isEmpty ? nil : String(rest)))
                        break
                    }
                }
            }
            index += 1
        }
    }

    private mutating func set(_ key: ProfileKey, _ value: String?) {
        guard let value else { return }
        switch key.kind {
        case .flag: values[key.name] = .flag(true)
        case .list, .values:
            if case .list(let earlier)? = values[key.name] {
                values[key.name] = .list(earlier + [value])
            } else {
                values[key.name] = .list([value])
            }
        default: values[key.name] = .text(value)
        }
    }
}
