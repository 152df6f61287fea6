"""2. The 300 files by PUT to nginx's WebDAV, against `rclone copy`."""
import os
import shutil

from harness.common import CONCURRENCY, WORK, BenchError, log
from harness.measure import alternate
from harness.report import batch_rows
from harness import tools

from . import small_post

KEY = "put"
COUNT, SIZE = small_post.COUNT, small_post.SIZE


def run(bench) -> None:
    files = small_post.folder()
    source = files[0].parent
    dav = f"{bench.nginx.url}/dav/"

    def verify(run, name: str):
        stored = bench.nginx.davroot / "dav" / name
        sizes = {p.name: p.stat().st_size for p in stored.iterdir()} if stored.is_dir() else {}
        if sizes != {p.name: SIZE for p in files}:
            raise BenchError(f"{name}: {len(sizes)} files in {stored}, expected {COUNT} of {SIZE} B")
        shutil.rmtree(stored)  # keeps the disk small; outside the timed part
        return run

    def tui(name: str):
        return verify(tools.tui(bench, name, "small_put_tui", [str(source), "--put", f"{dav}{name}/",
                                                               *tools.concurrency()],
                                bench.nginx, "PUT", COUNT, SIZE), name)

    def rclone(name: str):
        argv = ["rclone", "copy", str(source), f":webdav:{name}", "--webdav-url", dav, "--transfers", str(CONCURRENCY)]
        # No rclone.conf: the remote is given on the command line.
        env = dict(os.environ, RCLONE_CONFIG=str(WORK / "rclone.conf"))
        return verify(tools.peer(bench, name, "small_put_rclone", argv, bench.nginx, "PUT", COUNT, SIZE, env), name)

    log("2. the same 300 files by PUT -> nginx WebDAV")
    bench.results[KEY] = alternate("put", bench.runs, [("uploader-tui", tui), ("rclone", rclone)])


def rows(bench):
    r = bench.results[KEY]
    return batch_rows("2. the same 300 files, PUT, 8 in flight → nginx WebDAV; peer: `rclone copy --transfers 8`",
                      r["uploader-tui"], r["rclone"], COUNT, SIZE), []
