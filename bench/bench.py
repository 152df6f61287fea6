#!/usr/bin/env python3
"""`make bench`: uploader-tui against curl, rclone, aws and its own screen, on 127.0.0.1 and a shaped link.

Starts the servers each comparison needs (nginx as a discard sink and WebDAV, plain, TLS or HTTP/2; the reference
server; moto), makes the data under bench/data/ (reused across runs), measures each comparison with the tools
alternating run by run (a warm-up round, then N counted rounds; the order flips every round), prints the table and
writes bench/RESULTS.md. Everything it starts is stopped by PID when it ends, also on Ctrl-C or SIGTERM.

The comparisons are the modules of bench/comparisons/, the shared runners those of bench/harness/. Python 3 standard
library, plus Pillow (photos) and moto with boto3 (S3). Needs nginx with the dav-ext module, rclone, aws, hyperfine,
GNU time, tmux, openssl and curl (the Makefile's `bench` target installs them).
"""

import argparse
import datetime
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from comparisons import ALL
from harness import report
from harness.common import RESULTS, WORK, BenchError, log
from harness.context import Bench
from harness.processes import PROCESSES


def main() -> int:
    keys = [comparison.KEY for comparison in ALL]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, type=Path,
                        help="folder with release uploader-tui and uploader-server (swift build -c release --show-bin-path)")
    parser.add_argument("--runs", type=int, default=5, help="counted rounds per comparison (default 5)")
    parser.add_argument("--big-runs", type=int, help="counted rounds for the 2 GiB file (default: --runs)")
    parser.add_argument("--only", default=",".join(keys), help=f"comma-separated subset of {','.join(keys)} (default: all)")
    parser.add_argument("--queue-route", choices=("post", "put"), default="post",
                        help="comparison 5's route on the reference server: post (multipart POST "
                             "/datasets/bench/images, the default) or put (PUT /files/bench/, no modeling step)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the Markdown report")
    args = parser.parse_args()
    selected = set(args.only.split(","))
    if selected - set(keys):
        parser.error(f"unknown comparison {', '.join(sorted(selected - set(keys)))}; the comparisons: {', '.join(keys)}")
    binaries = args.bin.resolve()
    for name in ("uploader-tui", "uploader-server"):
        if not os.access(binaries / name, os.X_OK):
            parser.error(f"{binaries / name} is missing: build it with `swift build -c release --product {name}`")
    for tool in ("nginx", "curl", "rclone", "hyperfine", "tmux", "openssl", "aws"):
        if not shutil.which(tool):
            parser.error(f"{tool} is not installed: `make bench` installs it")
    if not os.access("/usr/bin/time", os.X_OK):
        parser.error("/usr/bin/time (GNU time) is not installed: `make bench` installs it")
    if not Path("/usr/lib/nginx/modules/ngx_http_dav_ext_module.so").exists():
        parser.error("nginx's dav-ext module is missing: apt-get install libnginx-mod-http-dav-ext")

    # SIGINT, SIGTERM and SIGHUP unwind through the `finally` that stops every child. SIGINT is set
    # too because a shell starts background jobs with it ignored, and Python then leaves it so.
    def terminate(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, terminate)

    started = datetime.datetime.now(datetime.timezone.utc)
    clock = time.monotonic()
    load_before = os.getloadavg()[0]
    if load_before > 0.5:
        log(f"bench: the load average is {load_before:.2f}; other work on the machine skews the figures")
    tools = report.versions()  # before measuring: the commit the binaries were just built from
    WORK.mkdir(parents=True, exist_ok=True)
    bench = Bench(binaries, args.runs, args.big_runs or args.runs, args.queue_route)
    try:
        bench.nginx.start()
        log(f"nginx on {bench.nginx.url} (sink /sink/, WebDAV /dav/)")
        for comparison in ALL:
            if comparison.KEY in selected:
                comparison.run(bench)
    except BenchError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted; stopping what it started", file=sys.stderr)
        return 130
    finally:
        bench.nginx.stop()
        PROCESSES.stop_all()
    text = report.write(bench, [c for c in ALL if c.KEY in selected], started, time.monotonic() - clock, load_before,
                        tools)
    args.results.write_text(text)
    log("")
    log(text)
    log(f"wrote {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
