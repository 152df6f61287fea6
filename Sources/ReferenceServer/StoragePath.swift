import Foundation

/// A file location inside the server root that has been sanitised and confined.
///
/// Every name that reaches the disk (dataset ids, multipart filenames, `PUT` paths) comes from the
/// client, so it is treated as hostile: each component is cleaned on its own and the final path is
/// checked against the real (symlink-resolved) location of its confinement directory.
struct StoragePath: Sendable, Equatable {
    /// Absolute path of the directory the file must stay inside (e.g. `<root>/datasets/<id>`).
    let baseDirectory: String
    /// Sanitised components below `baseDirectory`; never empty.
    let components: [String]
    /// Prefix of the root-relative path, e.g. `datasets/<id>` or `files`.
    let rootRelativeBase: String

    /// Absolute path of the final file.
    var absolutePath: String { ([baseDirectory] + components).joined(separator: "/") }

    /// Directory holding the final file (created on demand).
    var parentDirectory: String { ([baseDirectory] + components.dropLast()).joined(separator: "/") }

    /// Path relative to the server root, as reported to clients (`datasets/<id>/sub/cat.jpg`).
    var rootRelativePath: String { ([rootRelativeBase] + components).joined(separator: "/") }

    /// Longest component we accept; longer names would fail with `ENAMETOOLONG` anyway.
    static let maximumComponentBytes = 255

    /// Builds a confined path from a client-supplied relative path.
    ///
    /// - Parameters:
    ///   - rawPath: the name as received; `/` separates folders, everything else is data.
    ///   - baseDirectory: absolute directory the result must stay inside.
    ///   - rootRelativeBase: how `baseDirectory` is spelled relative to the server root.
    /// - Throws: `ReferenceServerError` with code `invalidPath` when nothing usable remains.
    init(sanitising rawPath: String, baseDirectory: String, rootRelativeBase: String) throws {
        let cleaned = rawPath.split(separator: "/", omittingEmptySubsequences: true)
            .compactMap(Self.sanitiseComponent)
        guard !cleaned.isEmpty else {
            throw ReferenceServerError(.invalidPath, "path has no usable components")
        }
        if cleaned.contains(where: { $0.utf8.count > Self.maximumComponentBytes }) {
            throw ReferenceServerError(.invalidPath, "path component too long")
        }
        self.baseDirectory = baseDirectory
        self.components = cleaned
        self.rootRelativeBase = rootRelativeBase
    }

    /// Whether anything of `rawPath` survives sanitising.
    static func hasUsableComponents(_ rawPath: String) -> Bool {
        rawPath.split(separator: "/").contains { sanitiseComponent($0) != nil }
    }

    /// Cleans one path component; returns nil for components that must be dropped.
    ///
    /// `.`/`..`/empty are dropped rather than rejected so `../../x` degrades to `x` instead of
    /// failing a whole upload batch. Control characters and backslashes become `_` because they are
    /// either invisible in listings or act as separators on other systems.
    static func sanitiseComponent<S: StringProtocol>(_ component: S) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in component.unicodeScalars {
            let isControl = scalar.value < 0x20 || scalar.value == 0x7F
                || (0x80...0x9F).contains(scalar.value)
            scalars.append(isControl || scalar == "\\" || scalar == "/" ? "_" : scalar)
        }
        let cleaned = String(scalars)
        if cleaned.isEmpty || cleaned == "." || cleaned == ".." { return nil }
        return cleaned
    }

    /// Sanitises a single-segment identifier such as a dataset id.
    static func sanitiseIdentifier(_ raw: String) throws -> String {
        guard let cleaned = sanitiseComponent(raw), cleaned.utf8.count <= maximumComponentBytes else {
            throw ReferenceServerError(.invalidPath, "invalid identifier")
        }
        return cleaned
    }

    /// Decodes `%XX` escapes of a URL path segment; undecodable segments are kept verbatim.
    static func percentDecoded<S: StringProtocol>(_ segment: S) -> String {
        String(segment).removingPercentEncoding ?? String(segment)
    }

    /// Creates the parent folders and checks that, with symlinks resolved, the file stays inside
    /// `baseDirectory`. Returns the absolute path to write to.
    func prepareParentDirectory() throws -> String {
        let fileManager = FileManager.default
        do {
            try fileManager.createDirectory(atPath: parentDirectory, withIntermediateDirectories: true)
        } catch {
            throw ReferenceServerError(.pathConflict, "cannot create folder for \(rootRelativePath)")
        }
        let realBase = Self.resolved(baseDirectory)
        let realParent = Self.resolved(parentDirectory)
        guard realParent == realBase || realParent.hasPrefix(realBase + "/") else {
            throw ReferenceServerError(.invalidPath, "path escapes its storage folder")
        }
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: absolutePath, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ReferenceServerError(.pathConflict, "\(rootRelativePath) is an existing folder")
        }
        return realParent + "/" + components[components.count - 1]
    }

    /// `realpath(3)` of an existing path, falling back to the input when it cannot be resolved.
    static func resolved(_ path: String) -> String {
        guard let pointer = realpath(path, nil) else { return path }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
