import Foundation

/// The fuzz targets, by the name `FUZZ_TARGET` takes; each reads one input and traps when an invariant breaks.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// The reference server's multipart stream parser, fed whole, byte by byte and split at chosen points.
    case multipart
    /// The presign API's JSON answer (`PresignTicket.parse`).
    case presign
    /// S3's XML answers: `S3XML.value`, `S3XML.error`, and `escape` against `unescape`.
    case s3XML = "s3-xml"
    /// The `--refresh-url` answer's JSON (`RefreshURLTokenProvider.token(inJSON:)`).
    case refreshToken = "refresh-token"
    /// Response header lines as libcurl hands them over (`HeaderLine`) and `--header` lines (`HTTPHeader`).
    case headerLine = "header-line"
    /// Sizes and rates on the command line (`ByteSize.parse`) and the `Retry-After` header's seconds.
    case byteSize = "byte-size"
    /// Everything that makes untrusted text printable: `Sanitizer`, `Glyphs.display`, `DisplayWidth`, NDJSON quoting.
    case sanitizer

    func run(_ input: [UInt8]) {
        switch self {
        case .multipart: MultipartFuzzer.run(input)
        case .presign: PresignFuzzer.run(input)
        case .s3XML: S3XMLFuzzer.run(input)
        case .refreshToken: RefreshTokenFuzzer.run(input)
        case .headerLine: HeaderLineFuzzer.run(input)
        case .byteSize: ByteSizeFuzzer.run(input)
        case .sanitizer: SanitizerFuzzer.run(input)
        }
    }

    /// The target `FUZZ_TARGET` names; exits with the list of targets when it names none.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("uploader-fuzz: set FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()
}

/// libFuzzer's entry point, as libFuzzer's own `main` names it: the linker pulls that `main` in, though SwiftPM's
/// entry point (`main.swift`, which passes the driver the same work as a closure) is the one that runs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.selected.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
