"""1. 300 files, multipart POST, 8 in flight, to the discard sink, against `curl --parallel`."""
from harness.common import DATA, KIB, log
from harness.data import make_files
from harness.report import batch_rows, faster_goal
from harness import tools

KEY = "post"
COUNT, SIZE = 300, 512 * KIB
GOAL = 1.1


def folder():
    return make_files(DATA / "small-300", COUNT, SIZE, "f", 3)


def run(bench) -> None:
    log("1. 300 x 512 KiB, multipart POST, 8 in flight -> nginx discard sink")
    bench.results[KEY] = tools.sink_race(bench, KEY, folder(), bench.nginx)


def rows(bench):
    tui, curl = bench.results[KEY]["uploader-tui"], bench.results[KEY]["curl"]
    table = batch_rows("1. 300 × 512 KiB, multipart POST, 8 in flight → nginx sink; peer: `curl --parallel`", tui,
                       curl, COUNT, SIZE)
    return table, [faster_goal("300 files, plain HTTP", tui, curl, GOAL, "curl --parallel")]


SETUP = [
    "- Comparisons 1–3 and 8–10 go to nginx on 127.0.0.1, `worker_processes 1` (2 cores: one for the server, one",
    "  for the client), `keepalive_requests 100000`. `/sink/` is `return 200` with `client_max_body_size 0` and",
    "  `lingering_time 60s`: nginx answers at once, then reads every body to its end and drops it, and logs the",
    "  request only then. After every run the bench checks the access log (the right number of requests, each",
    "  2xx, each declaring a body of at least the file's size) and the interface's received bytes (at least the",
    "  files' bytes; nginx's `$request_length` leaves out a discarded body). `/dav/` is WebDAV; after every run",
    "  every file is checked for name and size, then deleted (outside the timed part). Config:",
    "  `bench/nginx.conf.template`. nginx logs `$msec` once a body is read: the first-to-last span is the",
    "  transfers as the server saw them, and wall time minus it is everything else.",
    "- Each run is one `hyperfine --runs 1 -N`, the tool under `/usr/bin/time -f '%M %U %S %e'` (peak RSS, CPU),",
    "  unless its comparison says otherwise. uploader-tui runs with its journal on (a fresh file per run).",
    "- Data: random bytes under `bench/data/`, in the page cache.",
]
