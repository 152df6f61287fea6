import Foundation
import Testing

/// Animated GIF and WebP and multi-page TIFF with the real binary, libvips and the reference server: the image
/// options apply to every frame, and `--strip-metadata` never lets their metadata out.
@Suite("Animated and multi-page images", .serialized)
struct PagedImageUploadTests {
    let binary = ChildProcess.uploaderBinary

    @Test("--strip-metadata removes the GPS of an animated WebP and GIF and a multi-page TIFF, keeping every frame")
    func stripsEveryPage() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("paged")
        let tmp = try TestFolder("tmp-paged")
        try await Pillow.pagedImagesWithGPS(in: folder.path)
        let names = ["anim.gif", "anim.webp", "multi.tif"]
        let before = try await Pillow.describe(names.map { folder.path + "/" + $0 })
        #expect(names.allSatisfy { before[$0] == "4 300x200 gps" }, "\(before)")

        // Stripped only, then stripped and shrunk: both ways every frame arrives, without the GPS.
        for (prefix, extra, size) in [("s", [String](), "300x200"), ("m", ["--max-dimension", "120"], "120x80")] {
            let run = try await ChildProcess.run(
                binary,
                [
                    folder.path, "--to", server.url("/datasets/\(prefix)/images"), "--strip-metadata", "--no-tui",
                    "--no-resume",
                ] + extra,
                environment: ["TMPDIR": tmp.path])
            #expect(run.status == 0, "\(run.standardError)")
            let stored = try await Pillow.describe(names.map { server.stored("datasets/\(prefix)/\($0)") })
            for name in names {
                #expect(stored[name] == "4 \(size) clean", "\(prefix) \(name): \(stored) \(run.standardError)")
            }
        }
        await server.stop()
    }

    @Test("--convert leaves an animated GIF a GIF: the run says so, and a.gif does not clash with a.jpg beside it")
    func convertKeepsPagedFormat() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("paged-convert")
        try await Pillow.pagedImagesWithGPS(in: folder.path)
        _ = try await Pillow.run(
            "import sys; from PIL import Image; Image.new('RGB', (30, 20)).save(sys.argv[1] + '/anim.jpg')",
            [folder.path])
        let run = try await ChildProcess.run(
            binary,
            [folder.path, "--to", server.url("/datasets/c/images"), "--convert", "jpeg", "--no-tui", "--no-resume"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "note: 3 animated or multi-page images keep their format under --convert (a JPEG holds one frame; "
                    + "resizing and stripping still apply): anim.gif, anim.webp, multi.tif"),
            "\(run.standardError)")
        let stored = await server.server.statistics.storedByPath
        #expect(stored["datasets/c/anim.gif"] == 1 && stored["datasets/c/anim.jpg"] == 1, "\(stored)")

        // --types sees them as they are sent: a GIF is no JPEG, whatever --convert says.
        let typed = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/t/images"), "--convert", "jpeg", "--types", "jpeg",
                "--no-tui", "--no-resume",
            ])
        #expect(typed.status == 2, "\(typed.standardError)")
        #expect(
            typed.standardError.contains("--types jpeg: 3 files are not of these types: ")
                && typed.standardError.contains("anim.gif (image/gif)"), "\(typed.standardError)")
        #expect(await server.server.statistics.storedByPath["datasets/t/anim.jpg"] == nil)
        await server.stop()
    }

    @Test("a TIFF whose pages differ in size cannot be stripped: it fails with one line and nothing is sent")
    func unstrippableFails() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("paged-odd")
        _ = try await Pillow.run(
            """
            import sys
            from PIL import Image
            exif = Image.Exif()
            exif[0x8825] = {1: "N", 2: (51.0, 30.0, 0.0)}
            Image.new("RGB", (300, 200)).save(sys.argv[1] + "/odd.tif", save_all=True, exif=exif.tobytes(),
                                              append_images=[Image.new("RGB", (100, 80))])
            """, [folder.path])
        let run = try await ChildProcess.run(
            binary,
            [folder.path, "--to", server.url("/datasets/o/images"), "--strip-metadata", "--no-tui", "--no-resume"])
        #expect(run.status == 1, "\(run.standardError)")
        let line = run.standardError.split(separator: "\n").first { $0.contains("odd.tif: cannot strip metadata") }
        #expect(line?.hasSuffix("; nothing sent") == true, "\(run.standardError)")
        #expect(line?.contains(folder.path) == false, "no absolute path: \(run.standardError)")
        #expect(await server.server.statistics.filesStored == 0)
        await server.stop()
    }
}
