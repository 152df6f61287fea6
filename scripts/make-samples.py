#!/usr/bin/env python3
"""Writes N sample images into a folder: PNGs (noisy gradients, with the stdlib only) and, when Pillow is there,
phone-like JPEGs that carry an EXIF orientation and a GPS location, so the demo shows preparing and stripping."""
import os
import random
import struct
import sys
import zlib


def png(width: int, height: int, seed: int) -> bytes:
    rng = random.Random(seed)
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            noise = rng.randrange(64)
            row += bytes(((x * 255 // width + noise) & 255, (y * 255 // height + noise) & 255, (seed * 37 + noise) & 255))
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 6)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def photo(path: str, seed: int) -> None:
    """A 3000x2250 JPEG taken 'sideways' (orientation 6) somewhere near Lyon, as a phone would write it."""
    from PIL import Image

    rng = random.Random(seed)
    small = Image.frombytes("RGB", (30, 23), bytes(rng.randrange(256) for _ in range(30 * 23 * 3)))
    image = small.resize((3000, 2250), Image.BICUBIC)
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to view
    exif[0x010F] = "DemoPhone"
    gps = exif.get_ifd(0x8825)
    gps.update({1: "N", 2: (45.0, 45.0, 36.0), 3: "E", 4: (4.0, 50.0, 24.0)})
    image.save(path, "JPEG", quality=92, exif=exif)


def main() -> None:
    folder, count = sys.argv[1], int(sys.argv[2])
    os.makedirs(folder, exist_ok=True)
    try:
        import PIL  # noqa: F401

        photos = count // 3
    except ImportError:
        photos = 0
    sizes = [(160, 120), (320, 240), (640, 480), (1024, 768)]
    for i in range(count - photos):
        width, height = sizes[i % len(sizes)]
        with open(os.path.join(folder, f"pet-{i + 1:03d}.png"), "wb") as f:
            f.write(png(width, height, i))
    for i in range(photos):
        photo(os.path.join(folder, f"IMG_{4021 + i}.jpg"), 100 + i)


if __name__ == "__main__":
    main()
