import Foundation
import UploadDomain

/// `--results FILE`: every file's outcome in input order, written whole or not at all.
enum ResultsFile {
    static func write(_ files: [FileSnapshot], to path: String) throws {
        let entries: [[String: Any]] = files.map { file in
            var entry: [String: Any] = ["file": file.name, "phase": file.phase.rawValue, "attempts": file.attempt]
            entry["mediaID"] = file.result?.mediaID
            entry["location"] = file.result?.location
            entry["httpStatus"] = file.httpStatus
            entry["error"] = file.error.map { $0.forFile(file.name).description }
            return entry
        }
        let data = try JSONSerialization.data(
            withJSONObject: ["files": entries], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        // Temp file and rename, so a reader never sees half a file.
        let temporary = path + ".tmp-\(getpid())"
        try data.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: reason])
        }
    }
}
