"""4. The screen in tmux against headless, on 300 photos (JPEG) to the sink. At 130 columns the screen draws the
selected image's preview beside the list, and a key moves the selection every 0.2 s, so previews are decoded all
along (headless is sent the same keys and ignores them)."""
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from harness.common import CONCURRENCY, DATA, RUN_TIMEOUT, WORK, BenchError, log
from harness.data import make_noise_photos
from harness.measure import Run, alternate, drop_journal, fresh_journal, med
from harness.processes import PROCESSES
from harness.report import cpu, row, rss_mib, seconds

from . import small_post

KEY = "tui"
COUNT, SIZE = small_post.COUNT, small_post.SIZE
GOAL_OVERHEAD = 0.05
REAPER = Path(__file__).resolve().parent.parent / "harness" / "reaper.py"


def run(bench) -> None:
    photos = make_noise_photos(DATA / "photos-300", COUNT, SIZE)
    sink = f"{bench.nginx.url}/sink/"
    socket_name = f"bench-{os.getpid()}"
    tmux = ["tmux", "-L", socket_name]
    quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    # A placeholder session keeps this private server up, so its start-up is not timed.
    subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-s", "idle", "-x", "100", "-y", "30",
                           "sleep 86400"], check=True, **quiet)
    server_pid = int(subprocess.run(tmux + ["display-message", "-p", "-t", "idle", "#{pid}"],
                                    check=True, capture_output=True, text=True).stdout.strip())
    PROCESSES.adopt("tmux server", server_pid)

    def measure(name: str, headless: bool) -> Run:
        journal = fresh_journal(name)
        out = WORK / "out"
        out.mkdir(parents=True, exist_ok=True)
        exit_file, usage_file = out / f"{name}.exit", out / f"{name}.usage"
        exit_file.unlink(missing_ok=True)
        usage_file.unlink(missing_ok=True)
        argv = [str(bench.tui), str(photos[0].parent), "--to", sink, "--concurrency", str(CONCURRENCY),
                "--journal", str(journal), "--exit-when-done"] + (["--no-tui"] if headless else [])
        bench.remember("tui_headless" if headless else "tui_screen", argv)
        command = shlex.join([sys.executable, str(REAPER), str(exit_file), str(usage_file), "--"] + argv)
        mark = bench.nginx.mark()
        started = time.perf_counter()
        subprocess.run(tmux + ["new-session", "-d", "-s", name, "-x", "130", "-y", "30",
                               "-e", "TERM=xterm-256color", "-e", "LANG=C.UTF-8", command],
                       check=True, **quiet)
        deadline = time.monotonic() + RUN_TIMEOUT
        next_key = time.monotonic() + 0.2
        while not exit_file.exists():
            if time.monotonic() > deadline:
                raise BenchError(f"{name}: no exit file after {RUN_TIMEOUT:.0f} s")
            # Both runs get the keys (headless ignores them), so the tmux clients they take are in both.
            if time.monotonic() >= next_key:
                next_key += 0.2
                subprocess.run(tmux + ["send-keys", "-t", name, "j"], **quiet)
            time.sleep(0.01)
        elapsed = time.perf_counter() - started
        code = int(exit_file.read_text().strip())
        # The run process may still be closing its journal: the next round must not overlap it.
        while not usage_file.exists():
            if time.monotonic() > deadline:
                raise BenchError(f"{name}: the run's processes did not all end within {RUN_TIMEOUT:.0f} s")
            time.sleep(0.01)
        usage = json.loads(usage_file.read_text())
        if code != 0:
            raise BenchError(f"{name}: uploader-tui exited with {code}")
        checked = bench.nginx.check(mark, "POST", COUNT, SIZE)
        drop_journal(journal)
        checked["processes"] = usage["processes"]
        return Run(seconds=elapsed, rss_kib=usage["rss_kib"], user=usage["user"], system=usage["system"],
                   exit_code=code, extra=checked)

    log("4. the screen (tmux, 130x30, previews and graph) against --no-tui, 300 photos -> sink")
    try:
        bench.results[KEY] = alternate("tui", bench.runs, [
            ("screen", lambda name: measure(name, headless=False)),
            ("no-tui", lambda name: measure(name, headless=True)),
        ])
    finally:
        subprocess.run(tmux + ["kill-server"], **quiet)
        PROCESSES.stop(server_pid)


def rows(bench):
    screen, headless = bench.results[KEY]["screen"], bench.results[KEY]["no-tui"]
    table = [
        row("4. the screen in tmux (130×30, graph and image previews, the selection moving) vs `--no-tui`, 300 photos"
            " (JPEG) → sink; peer: itself headless",
            "wall time, s (lower is better)", seconds(screen), seconds(headless), 3),
        row("", "CPU user+sys, s (screen: both processes)", cpu(screen), cpu(headless), 2),
        row("", "peak RSS, MiB (screen: sum of both processes' peaks)", rss_mib(screen), rss_mib(headless), 1),
    ]
    overhead = med(seconds(screen)) / med(seconds(headless)) - 1
    return table, [(f"screen within {GOAL_OVERHEAD:.0%} of headless (median wall time)", f"{overhead:+.1%}",
                    overhead <= GOAL_OVERHEAD)]


SETUP = [
    "- Comparison 4: both modes in one private tmux server (`tmux -L`, started beforehand with a placeholder",
    "  session, so its start-up is not timed), a new 130×30 session per run (`TERM=xterm-256color`,",
    "  `LANG=C.UTF-8`); time from launching the session to its exit file (polled every 10 ms). Each run goes through",
    "  `bench/harness/reaper.py`, a child subreaper: it writes the exit file when uploader-tui exits and takes the CPU",
    "  time and peak RSS of every process, so the screen's run process (in a session of its own) is counted too.",
    "  The RSS sum counts the pages both processes map from the same binary and libraries (most of each peak) twice.",
]
