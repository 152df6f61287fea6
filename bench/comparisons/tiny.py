"""10. 10,000 files of 2 KiB to the discard sink, against `curl --parallel` (issue 20): where every request's own
cost, not the bytes, sets the pace."""
from harness.common import CONCURRENCY, log
from harness.measure import alternate
from harness.report import batch_rows, faster_goal
from harness import tools

from . import queue

KEY = "tiny"
COUNT, SIZE = queue.COUNT, queue.SIZE
GOAL = 1.1


def run(bench) -> None:
    files = queue.folder()
    sink = f"{bench.nginx.url}/sink/"
    config = tools.curl_config("curl-tiny", sink, files)

    def tui(name: str):
        return tools.tui(bench, name, "tiny_tui", [str(files[0].parent), "--to", sink, *tools.concurrency()],
                         bench.nginx, "POST", COUNT, SIZE)

    def curl(name: str):
        argv = tools.CURL_PARALLEL + ["--parallel-max", str(CONCURRENCY), "-K", str(config)]
        return tools.peer(bench, name, "tiny_curl", argv, bench.nginx, "POST", COUNT, SIZE)

    log("10. 10,000 x 2 KiB, multipart POST, 8 in flight -> nginx discard sink")
    bench.results[KEY] = alternate("tiny", bench.runs, [("uploader-tui", tui), ("curl", curl)])


def rows(bench):
    tui, curl = bench.results[KEY]["uploader-tui"], bench.results[KEY]["curl"]
    table = batch_rows("10. 10,000 × 2 KiB, multipart POST, 8 in flight → nginx sink; peer: `curl --parallel`", tui,
                       curl, COUNT, SIZE)
    return table, [faster_goal("10,000 tiny files", tui, curl, GOAL, "curl --parallel")]
