"""9. The 300 files over HTTP/2 (TLS, ALPN h2), PUT to WebDAV, against `curl --parallel --http2`: many files over
few connections. PUT to WebDAV, not POST to the sink: on HTTP/2 nginx's early answer to a body it has not read
resets the stream, which libcurl 7.88 reports as an error, for curl as for uploader-tui."""
from harness.common import CONCURRENCY, log
from harness.measure import alternate
from harness.report import batch_rows, faster_goal
from harness.servers import Nginx
from harness.tls import make_certificates
from harness import tools

from . import small_post

KEY = "http2"
COUNT, SIZE = small_post.COUNT, small_post.SIZE
GOAL = 1.0
GOALS = [f"300 files over HTTP/2: ≥ {GOAL:.1f}x curl --parallel --http2"]


def run(bench) -> None:
    files = small_post.folder()
    certificates = make_certificates()
    nginx = Nginx(name="nginx-http2", tls=certificates, http2=True)
    nginx.start()
    try:
        dav = f"{nginx.url}/dav/"

        def tui(name: str):
            args = [str(files[0].parent), "--put", f"{dav}{name}/", *tools.concurrency(), "--cacert",
                    str(certificates.ca), "--http2"]
            return tools.take_dav(tools.tui(bench, name, "http2_tui", args, nginx, "PUT", COUNT, SIZE), nginx, name,
                                  files)

        def curl(name: str):
            config = tools.curl_config(f"curl-{name}", f"{dav}{name}/", files, form=False,
                                       options=(f'cacert = "{certificates.ca}"', "http2"))
            argv = tools.CURL_PARALLEL + ["--parallel-max", str(CONCURRENCY), "-K", str(config)]
            return tools.take_dav(tools.peer(bench, name, "http2_curl", argv, nginx, "PUT", COUNT, SIZE), nginx, name,
                                  files)

        log("9. 300 x 512 KiB, PUT over HTTP/2 -> nginx WebDAV")
        bench.results[KEY] = alternate(KEY, bench.runs, [("uploader-tui", tui), ("curl", curl)])
    finally:
        nginx.stop()


def rows(bench):
    tui, curl = bench.results[KEY]["uploader-tui"], bench.results[KEY]["curl"]
    table = batch_rows("9. 300 × 512 KiB, PUT, 8 in flight, HTTP/2 (TLS, ALPN h2) → nginx WebDAV; peer: `curl --parallel"
                       " --http2`", tui, curl, COUNT, SIZE)
    return table, [faster_goal("300 files over HTTP/2", tui, curl, GOAL, "curl --parallel --http2")]
