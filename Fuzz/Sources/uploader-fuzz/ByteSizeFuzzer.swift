import UploadDomain
import UploaderCLI

/// Sizes and rates on fuzzed text: `ByteSize.parse` (`--limit-rate`, `--part-size`, `--multipart-threshold`) and the
/// seconds of a `Retry-After` header, as far as the wait the retry policy makes of them.
///
/// A size must be a whole number of bytes from 0 to 9e18 and read the same in either case; a wait must be between
/// zero and the policy's five-minute cap.
enum ByteSizeFuzzer {
    static func run(_ input: [UInt8]) {
        let text = input.text
        if let size = ByteSize.parse(text) {
            require(size >= 0 && Double(size) < 9e18, "size \(size) from \(text.debugDescription)")
            require(ByteSize.parse(text.lowercased()) == size, "\(text.debugDescription) reads differently lowercased")
        }

        let response = TransferResponse(status: 503, headers: ["retry-after": text])
        guard let error = response.error(file: "a.jpg") else { return require(false, "no error for a 503") }
        let policy = RetryPolicy()
        let wait = policy.delay(after: error, attempt: 1, unit: 0.5)
        require(wait.map { $0 >= .zero && $0 <= .seconds(300) } ?? false, "wait \(String(describing: wait))")
    }
}
