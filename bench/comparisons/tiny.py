"""10. 10,000 files of 2 KiB to the discard sink, against `curl --parallel` (issue 20): where every request's own
cost, not the bytes, sets the pace."""
from harness.common import log
from harness.report import batch_rows, faster_goal
from harness import tools

from . import queue

KEY = "tiny"
COUNT, SIZE = queue.COUNT, queue.SIZE
GOAL = 1.1


def run(bench) -> None:
    log("10. 10,000 x 2 KiB, multipart POST, 8 in flight -> nginx discard sink")
    bench.results[KEY] = tools.sink_race(bench, KEY, queue.folder(), bench.nginx)


def rows(bench):
    tui, curl = bench.results[KEY]["uploader-tui"], bench.results[KEY]["curl"]
    table = batch_rows("10. 10,000 × 2 KiB, multipart POST, 8 in flight → nginx sink; peer: `curl --parallel`", tui,
                       curl, COUNT, SIZE)
    return table, [faster_goal("10,000 tiny files", tui, curl, GOAL, "curl --parallel")]
