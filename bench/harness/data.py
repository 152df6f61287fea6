"""The files the comparisons send, made under bench/data/ once and reused."""
import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

from .common import GIB, KIB, MIB, REPO, BenchError, log

BIG_SIZE, BIG_CHUNK = 2 * GIB, 8 * MIB


def make_files(folder: Path, count: int, size: int, stem: str, width: int) -> list[Path]:
    """`count` files of `size` random bytes in `folder`, reused when already there."""
    paths = [folder / f"{stem}{index:0{width}d}.bin" for index in range(count)]
    if folder.is_dir() and len(list(folder.iterdir())) == count and all(
        p.is_file() and p.stat().st_size == size for p in paths
    ):
        return paths
    log(f"making {count} files of {size // KIB} KiB in {folder.relative_to(REPO)}")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for path in paths:
        path.write_bytes(os.urandom(size))
    return paths


def make_big_file(path: Path) -> Path:
    if path.is_file() and path.stat().st_size == BIG_SIZE:
        return path
    log(f"making {BIG_SIZE // GIB} GiB of random bytes in {path.relative_to(REPO)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("wb") as out:
        for _ in range(BIG_SIZE // BIG_CHUNK):
            out.write(os.urandom(BIG_CHUNK))
    partial.rename(path)
    return path


def make_noise_photos(folder: Path, count: int, size: int) -> list[Path]:
    """`count` JPEGs of random pixels, each at least `size` bytes, for the screen's previews: PNGs written here,
    encoded by libvips' `vips` command (quality 95; noise compresses little)."""
    width, height = 384, 682
    paths = [folder / f"p{index:03d}.jpg" for index in range(count)]
    if folder.is_dir() and len(list(folder.iterdir())) == count and all(
        p.is_file() and p.stat().st_size >= size for p in paths
    ):
        return paths
    log(f"making {count} JPEGs of {width}x{height} random pixels in {folder.relative_to(REPO)}")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = folder / "source.png"
    for path in paths:
        rows = b"".join(b"\0" + os.urandom(width * 3) for _ in range(height))
        png.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 0))
                        + chunk(b"IEND", b""))
        subprocess.run(["vips", "copy", str(png), f"{path}[Q=95]"], check=True)
        if path.stat().st_size < size:
            raise BenchError(f"{path.name}: {path.stat().st_size} bytes, fewer than {size}")
    png.unlink()
    return paths
