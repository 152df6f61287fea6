// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "uploader-tui",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "uploader-tui", targets: ["uploader-tui"]),
        .executable(name: "uploader-server", targets: ["uploader-server"]),
        // For the libFuzzer package in Fuzz/ (`make fuzz`), which depends on this one by path; nothing here uses them.
        .library(name: "UploadDomain", targets: ["UploadDomain"]),
        .library(name: "UploadData", targets: ["UploadData"]),
        .library(name: "UploaderCLI", targets: ["UploaderCLI"]),
        .library(name: "UploaderTUI", targets: ["UploaderTUI"]),
        .library(name: "ReferenceServer", targets: ["ReferenceServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.20.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
    ],
    targets: [
        .target(name: "CCurl"),
        // Release builds link ncursesw statically (the executable's linker settings).
        .target(name: "CNcurses", linkerSettings: [.linkedLibrary("ncursesw", .when(configuration: .debug))]),
        .target(name: "CXXHash", linkerSettings: [.linkedLibrary("xxhash")]),
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        // libvips is loaded with dlopen on first use (see Sources/CVips), so nothing is linked: release builds are
        // unaffected. Its headers include GLib's, which live outside the default search path (Debian's libglib2.0-dev).
        .target(
            name: "CVips",
            cSettings: [
                .unsafeFlags(
                    [
                        "-I/usr/include/glib-2.0", "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include",
                        "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include",
                    ], .when(platforms: [.linux]))
            ]),
        .target(name: "UploadDomain"),
        // The run process's socket and its protocol (issue 18): screens attach to a run that outlives them.
        .target(name: "CRunService"),
        .target(name: "RunService", dependencies: ["UploadDomain", "CRunService"]),
        .target(
            name: "UploadData",
            dependencies: [
                "UploadDomain", "CCurl", "CXXHash", "CZlib", "CSQLite", "CVips",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // TOMLKit reads the profiles file (config.toml); the parsing and precedence live here so UploaderCLITests
        // can test them without the executable. swift-log writes --log-file.
        .target(
            name: "UploaderCLI",
            dependencies: [
                "UploadDomain", .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "UploaderTUI", dependencies: ["UploadDomain", "CNcurses"]),
        .executableTarget(
            name: "uploader-tui",
            dependencies: [
                "UploadDomain", "UploadData", "UploaderCLI", "UploaderTUI", "RunService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [
                // Release: relative relocations packed (DT_RELR, glibc 2.36+) and no symbols exported, so a start
                // reads less of the binary; ncursesw, SQLite and libstdc++ linked in: four shared libraries
                // fewer for the loader to map and bind at every start (issue 6). `link/` holds linker scripts that
                // turn the `-lsqlite3` and `-lstdc++` others add into their static archives. `make release` adds
                // --static-swift-stdlib.
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker",
                        "--no-export-dynamic", "-Xlinker", "-l:libncursesw.a", "-Xlinker", "-l:libtinfo.a",
                        "-L", Context.packageDirectory + "/link",
                        // The functions a run executes, placed together: the kernel maps code 64 KiB around each
                        // page a run touches, so scattered, they made most of the binary's text resident (issue 20,
                        // docs/engine.md). A function missing from the list is only placed after them.
                        "-Xlinker", "--symbol-ordering-file=" + Context.packageDirectory + "/link/symbol-order.txt",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ], .when(platforms: [.linux], configuration: .release)),
            ]
        ),
        .target(
            name: "ReferenceServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "uploader-server",
            dependencies: [
                "ReferenceServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "UploadDomainTests", dependencies: ["UploadDomain"]),
        .testTarget(
            name: "UploadDataTests",
            dependencies: [
                "UploadData", "UploadDomain", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(name: "UploaderCLITests", dependencies: ["UploaderCLI"]),
        .testTarget(name: "RunServiceTests", dependencies: ["RunService", "UploadDomain"]),
        .testTarget(name: "UploaderTUITests", dependencies: ["UploaderTUI", "UploadDomain"], exclude: ["Snapshots"]),
        .testTarget(name: "ReferenceServerTests", dependencies: ["ReferenceServer"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "UploadDomain", "UploadData", "UploaderCLI", "ReferenceServer",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Support/s3_tool.py"]
        ),
    ]
)
