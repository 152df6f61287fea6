"""The files the comparisons send, made under bench/data/ once and reused."""
import os
import shutil
from pathlib import Path

from .common import GIB, KIB, MIB, REPO, log

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
