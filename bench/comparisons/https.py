"""8. The 300 files over HTTPS (issue 20): nginx with a certificate the bench makes, every client trusting it by its
CA option, against `curl --parallel`."""
from harness.common import log
from harness.report import batch_rows, faster_goal
from harness.servers import Nginx
from harness.tls import make_certificates
from harness import tools

from . import small_post

KEY = "https"
COUNT, SIZE = small_post.COUNT, small_post.SIZE
GOAL = 1.0
GOALS = [f"300 files over HTTPS: ≥ {GOAL:.1f}x curl --parallel"]


def run(bench) -> None:
    certificates = make_certificates()
    nginx = Nginx(name="nginx-https", tls=certificates)
    nginx.start()
    try:
        log("8. 300 x 512 KiB, multipart POST over HTTPS (HTTP/1.1) -> nginx sink")
        bench.results[KEY] = tools.sink_race(bench, KEY, small_post.folder(), nginx,
                                             tui_args=("--cacert", str(certificates.ca), "--http1.1"),
                                             curl_options=(f'cacert = "{certificates.ca}"', "http1.1"))
    finally:
        nginx.stop()


def rows(bench):
    tui, curl = bench.results[KEY]["uploader-tui"], bench.results[KEY]["curl"]
    table = batch_rows("8. 300 × 512 KiB, multipart POST, 8 in flight, HTTPS (HTTP/1.1) → nginx sink; peer:"
                       " `curl --parallel --http1.1`", tui, curl, COUNT, SIZE)
    return table, [faster_goal("300 files over HTTPS", tui, curl, GOAL, "curl --parallel")]


SETUP = [
    "- Comparisons 8 and 9: nginx over TLS with an EC P-256 certificate for 127.0.0.1 signed by a CA the bench makes",
    "  with openssl (`bench/harness/tls.py`); session tickets and a session cache on, as on a real server. Every",
    "  client is given the CA by `--cacert` (in curl's config, in every block), none runs with `--insecure`. TLS",
    "  1.2 and 1.3 (`ssl_protocols`), as nginx 1.22 leaves 1.3 off by default.",
]
