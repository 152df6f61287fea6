"""8. The 300 files over HTTPS (issue 20): nginx with a certificate the bench makes, every client trusting it by its
CA option, against `curl --parallel`."""
from harness.common import CONCURRENCY, log
from harness.measure import alternate
from harness.report import batch_rows, faster_goal
from harness.servers import Nginx
from harness.tls import make_certificates
from harness import tools

from . import small_post

KEY = "https"
COUNT, SIZE = small_post.COUNT, small_post.SIZE
GOAL = 1.0
GOALS = [f"300 files over HTTPS: ≥ {GOAL:.1f}x curl --parallel"]


def measure(bench, key: str, label: str, http2: bool, tui_flags: list[str], curl_flags: list[str]) -> dict:
    """Both tools POSTing the 300 files to a TLS nginx (HTTP/2 by ALPN when `http2`)."""
    files = small_post.folder()
    certificates = make_certificates()
    nginx = Nginx(name=f"nginx-{key}", tls=certificates, http2=http2)
    nginx.start()
    try:
        sink = f"{nginx.url}/sink/"
        config = tools.curl_config(f"curl-{key}", sink, files)

        def tui(name: str):
            args = [str(files[0].parent), "--to", sink, *tools.concurrency(), "--cacert", str(certificates.ca),
                    *tui_flags]
            return tools.tui(bench, name, f"{key}_tui", args, nginx, "POST", COUNT, SIZE)

        def curl(name: str):
            argv = tools.CURL_PARALLEL + ["--parallel-max", str(CONCURRENCY), "--cacert", str(certificates.ca),
                                          *curl_flags, "-K", str(config)]
            return tools.peer(bench, name, f"{key}_curl", argv, nginx, "POST", COUNT, SIZE)

        log(label)
        return alternate(key, bench.runs, [("uploader-tui", tui), ("curl", curl)])
    finally:
        nginx.stop()


def run(bench) -> None:
    bench.results[KEY] = measure(bench, KEY, "8. 300 x 512 KiB, multipart POST over HTTPS (HTTP/1.1) -> nginx sink",
                                 http2=False, tui_flags=["--http1.1"], curl_flags=["--http1.1"])


def rows(bench):
    tui, curl = bench.results[KEY]["uploader-tui"], bench.results[KEY]["curl"]
    table = batch_rows("8. 300 × 512 KiB, multipart POST, 8 in flight, HTTPS (HTTP/1.1, TLS 1.3) → nginx sink; peer:"
                       " `curl --parallel --http1.1`", tui, curl, COUNT, SIZE)
    return table, [faster_goal("300 files over HTTPS", tui, curl, GOAL, "curl --parallel")]


SETUP = [
    "- Comparisons 8 and 9: nginx over TLS with an EC P-256 certificate for 127.0.0.1 signed by a CA the bench makes",
    "  with openssl (`bench/harness/tls.py`); session tickets and a session cache on, as on a real server. Every",
    "  client is given the CA by `--cacert`, none runs with `--insecure`.",
]
