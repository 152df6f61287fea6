import Foundation

/// Python's Pillow, which writes and reads the animated and multi-page images libvips' test helpers cannot make with
/// their metadata (an EXIF GPS block in an animated WebP or a TIFF, XMP in a GIF). `make test` installs it.
enum Pillow {
    /// Runs `script` with `arguments` (`sys.argv[1:]`) and returns what it printed.
    static func run(_ script: String, _ arguments: [String]) async throws -> String {
        let outcome = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", script] + arguments)
        guard outcome.status == 0 else {
            throw TestFailure(description: "python3 with Pillow (make test installs it): \(outcome.standardError)")
        }
        return outcome.standardOutput
    }

    /// Writes into `folder` four-frame 300x200 images that carry a GPS position: `anim.webp` (EXIF), `anim.gif`
    /// (XMP, which GIF keeps in an application extension) and `multi.tif` (a GPS IFD).
    static func pagedImagesWithGPS(in folder: String) async throws {
        _ = try await run(
            """
            import sys
            from PIL import Image
            folder = sys.argv[1]
            frames = [Image.new("RGB", (300, 200), (i * 60, 100, 200 - i * 40)) for i in range(4)]
            exif = Image.Exif()
            exif[0x8825] = {1: "N", 2: (51.0, 30.0, 0.0), 3: "W", 4: (0.0, 7.0, 0.0)}
            frames[0].save(folder + "/anim.webp", save_all=True, append_images=frames[1:], duration=100, loop=0,
                           exif=exif.tobytes())
            frames[0].save(folder + "/multi.tif", save_all=True, append_images=frames[1:], exif=exif.tobytes())
            frames[0].save(folder + "/anim.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
            xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                   b'<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="51,30.0N"'
                   b' exif:GPSLongitude="0,7.0W"/></rdf:RDF></x:xmpmeta>')
            gif = open(folder + "/anim.gif", "rb").read()
            table = 3 * 2 ** ((gif[10] & 7) + 1) if gif[10] & 0x80 else 0
            # XMP's application extension, its "magic trailer" making the data read as sub-blocks.
            block = b"\\x21\\xff\\x0bXMP DataXMP" + xmp + b"\\x01" + bytes(range(255, -1, -1)) + b"\\x00"
            open(folder + "/anim.gif", "wb").write(gif[:13 + table] + block + gif[13 + table:])
            """, [folder])
    }

    /// For each file: its frames, one frame's size and whether it still carries a GPS position (EXIF GPS IFD, or
    /// a GPS field in its XMP or anywhere in its bytes), as `name frames WxH gps|clean`.
    static func describe(_ paths: [String]) async throws -> [String: String] {
        let output = try await run(
            """
            import os, sys
            from PIL import Image
            for path in sys.argv[1:]:
                image = Image.open(path)
                raw = open(path, "rb").read()
                gps = bool(image.getexif().get_ifd(0x8825)) or b"GPSLatitude" in raw or b"GPSLongitude" in raw
                print(os.path.basename(path), getattr(image, "n_frames", 1), "%dx%d" % image.size,
                      "gps" if gps else "clean")
            """, paths)
        var described: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 1)
            if fields.count == 2 { described[String(fields[0])] = String(fields[1]) }
        }
        return described
    }
}
