// swift-tools-version:6.2
import PackageDescription

// libFuzzer targets for the parsers that read untrusted bytes (issue 15). A package of its own so the root build and
// `make test` never compile them: the executable's `main` hands over to libFuzzer's driver, which only
// -sanitize=fuzzer links in. `make fuzz` (scripts/fuzz.sh) builds and runs it.
let package = Package(
    name: "uploader-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "uploader-tui", path: "..")
    ],
    targets: [
        // libFuzzer's driver, declared for Swift.
        .target(name: "CFuzzer"),
        // One executable for every target, chosen by FUZZ_TARGET: one link instead of one per target (each would
        // carry NIO, GRDB and swift-crypto), and one set of flags.
        .executableTarget(
            name: "uploader-fuzz",
            dependencies: [
                "CFuzzer",
                .product(name: "UploadDomain", package: "uploader-tui"),
                .product(name: "UploadData", package: "uploader-tui"),
                .product(name: "UploaderCLI", package: "uploader-tui"),
                .product(name: "UploaderTUI", package: "uploader-tui"),
                .product(name: "ReferenceServer", package: "uploader-tui"),
            ],
            // CNcurses links ncursesw only in debug builds; release ones get it from uploader-tui's linker flags.
            linkerSettings: [.linkedLibrary("ncursesw")]
        )
    ]
)
