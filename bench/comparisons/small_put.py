"""2. The 300 files by PUT to nginx's WebDAV, against `rclone copy`."""
import os

from harness.common import CONCURRENCY, WORK, log
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

    def tui(name: str):
        return tools.take_dav(tools.tui(bench, name, "small_put_tui", [str(source), "--put", f"{dav}{name}/",
                                                               *tools.concurrency()],
                                bench.nginx, "PUT", COUNT, SIZE), bench.nginx, name, files)

    def rclone(name: str):
        argv = ["rclone", "copy", str(source), f":webdav:{name}", "--webdav-url", dav, "--transfers", str(CONCURRENCY)]
        # No rclone.conf: the remote is given on the command line.
        env = dict(os.environ, RCLONE_CONFIG=str(WORK / "rclone.conf"))
        run = tools.peer(bench, name, "small_put_rclone", argv, bench.nginx, "PUT", COUNT, SIZE, env)
        return tools.take_dav(run, bench.nginx, name, files)

    log("2. the same 300 files by PUT -> nginx WebDAV")
    bench.results[KEY] = alternate("put", bench.runs, [("uploader-tui", tui), ("rclone", rclone)])


def rows(bench):
    r = bench.results[KEY]
    return batch_rows("2. the same 300 files, PUT, 8 in flight → nginx WebDAV; peer: `rclone copy --transfers 8`",
                      r["uploader-tui"], r["rclone"], COUNT, SIZE), []
