"""9. The 300 files over HTTP/2 (TLS, ALPN h2), against `curl --parallel --http2`: many files over few connections."""
from harness.report import batch_rows, faster_goal

from . import https

KEY = "http2"
GOAL = 1.0
GOALS = [f"300 files over HTTP/2: ≥ {GOAL:.1f}x curl --parallel --http2"]


def run(bench) -> None:
    bench.results[KEY] = https.measure(bench, KEY, "9. 300 x 512 KiB, multipart POST over HTTP/2 -> nginx sink",
                                       http2=True, tui_flags=["--http2"], curl_flags=["--http2"])


def rows(bench):
    tui, curl = bench.results[KEY]["uploader-tui"], bench.results[KEY]["curl"]
    table = batch_rows("9. the same over HTTP/2 (TLS, ALPN h2) → nginx sink; peer: `curl --parallel --http2`", tui,
                       curl, https.COUNT, https.SIZE)
    return table, [faster_goal("300 files over HTTP/2", tui, curl, GOAL, "curl --parallel --http2")]
