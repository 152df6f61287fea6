#!/usr/bin/env python3
"""Writes N sample PNG images (noisy gradients, 40 KiB to ~3 MiB) into a folder, with the stdlib only."""
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


def main() -> None:
    folder, count = sys.argv[1], int(sys.argv[2])
    os.makedirs(folder, exist_ok=True)
    sizes = [(160, 120), (320, 240), (640, 480), (1024, 768)]
    for i in range(count):
        width, height = sizes[i % len(sizes)]
        with open(os.path.join(folder, f"pet-{i + 1:03d}.png"), "wb") as f:
            f.write(png(width, height, i))


if __name__ == "__main__":
    main()
