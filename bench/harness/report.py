"""bench/RESULTS.md: the machine, the versions, every comparison's rows and goals, the setup and the commands."""
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

from .common import KIB, REPO
from .measure import Run, med, spread


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x"


def seconds(runs: list[Run]) -> list[float]:
    return [run.seconds for run in runs]


def cpu(runs: list[Run]) -> list[float]:
    return [run.user + run.system for run in runs]


def rss_mib(runs: list[Run]) -> list[float]:
    return [run.rss_kib / KIB for run in runs]


def row(title: str, metric: str, tui: list[float], peer: list[float], digits: int) -> tuple:
    return (title, metric, spread(tui, digits), spread(peer, digits), ratio(med(tui), med(peer)))


def batch_rows(title: str, tui: list[Run], peer: list[Run], count: int, size: int) -> list[tuple]:
    """The rows of a comparison sending `count` files of `size` bytes, whose runs nginx checked."""
    fps = lambda runs: [count / run.seconds for run in runs]
    mbs = lambda runs: [count * size / run.seconds / 1e6 for run in runs]
    span = lambda runs: [run.extra["span"] for run in runs]
    outside = lambda runs: [run.seconds - run.extra["span"] for run in runs]
    traffic = lambda runs: (f"{med([r.extra['requests'] for r in runs]):.0f} / "
                            f"{med([r.extra['connections'] for r in runs]):.0f}")
    return [
        row(title, "files/s (higher is better)", fps(tui), fps(peer), 1),
        row("", "MB/s (10⁶ B; higher is better)", mbs(tui), mbs(peer), 1),
        row("", "wall time, s", seconds(tui), seconds(peer), 3),
        row("", "first to last request done, on nginx's clock, s", span(tui), span(peer), 3),
        row("", "wall time outside that span (start-up, first request, last answer, exit), s", outside(tui),
            outside(peer), 3),
        row("", "CPU user+sys, s", cpu(tui), cpu(peer), 2),
        row("", "peak RSS, MiB", rss_mib(tui), rss_mib(peer), 1),
        ("", "HTTP requests / TCP connections (nginx log, median)", traffic(tui), traffic(peer), "—"),
    ]


def faster_goal(label: str, tui: list[Run], peer: list[Run], goal: float, peer_name: str) -> tuple:
    """`label`: uploader-tui's median rate ≥ `goal` × the peer's (the inverse ratio of the median wall times)."""
    value = med(seconds(peer)) / med(seconds(tui))
    return (f"{label}: ≥ {goal:.1f}x {peer_name}", f"{value:.2f}x ({med(seconds(tui)):.2f} s vs"
            f" {med(seconds(peer)):.2f} s)", value >= goal)


def machine() -> dict[str, str]:
    cpu_name = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name")), "unknown")
    mem_kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:"))
    release = Path("/etc/os-release").read_text()
    distro = next((line.split("=", 1)[1].strip('"') for line in release.splitlines()
                   if line.startswith("PRETTY_NAME=")), "unknown")
    return {
        "CPUs (nproc)": str(os.cpu_count()),
        "CPU": cpu_name,
        "RAM": f"{mem_kib / KIB / KIB:.1f} GiB",
        "kernel": f"{platform.system()} {platform.release()}",
        "OS": distro,
    }


def first_line(argv: list[str]) -> str:
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=REPO)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unavailable ({error})"
    text = (result.stdout or "") + (result.stderr or "")
    return next((line.strip() for line in text.splitlines() if line.strip()), "unknown")


def versions() -> dict[str, str]:
    commit = first_line(["git", "rev-parse", "--short", "HEAD"])
    # RESULTS.md itself is rewritten by every run, so it does not count as a change to what is measured.
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                            ":(exclude)bench/RESULTS.md"], capture_output=True, text=True, cwd=REPO).stdout.strip()
    if dirty:
        commit += " (working tree with uncommitted changes)"
    return {
        "uploader-tui": commit,
        "swift": first_line(["swift", "--version"]),
        "curl": first_line(["curl", "--version"]),
        "rclone": first_line(["rclone", "version"]),
        "aws": first_line(["aws", "--version"]),
        "moto": first_line([sys.executable, "-c", "import moto; print(moto.__version__)"]),
        "nginx": first_line(["nginx", "-v"]),
        "hyperfine": first_line(["hyperfine", "--version"]),
        "tmux": first_line(["tmux", "-V"]),
    }


def write(bench, comparisons, started: datetime.datetime, elapsed: float, load: float, tools: dict[str, str]) -> str:
    rows, goals, setup = [], [], []
    for comparison in comparisons:
        if comparison.KEY in bench.skipped:
            goals += [(goal, f"not measured: {bench.skipped[comparison.KEY]}", False)
                      for goal in getattr(comparison, "GOALS", [])]
            continue
        if not any(key == comparison.KEY or key.startswith(comparison.KEY + ":") for key in bench.results):
            continue
        more_rows, more_goals = comparison.rows(bench)
        rows += more_rows
        goals += more_goals
        setup += getattr(comparison, "SETUP", [])
    lines = [
        "# `make bench` results",
        "",
        f"Date: {started.strftime('%Y-%m-%d %H:%M %Z')}. The whole run took {elapsed / 60:.1f} min.",
        "",
        "Generated by `bench/bench.py` (`make bench`). Every figure is the median of the counted runs with",
        "the minimum–maximum in brackets; ratio = uploader-tui ÷ peer, of the medians. For rates higher is",
        "better, for times, CPU and memory lower is better. Each comparison ran a warm-up round (not",
        "counted), then alternated the tools run by run, flipping the order every round (A B, B A, …).",
        f"Counted rounds: {bench.runs} (the 2 GiB file: {bench.big_runs}; some slow comparisons fewer, as their"
        " titles say).",
        "",
        "## Machine",
        "",
    ]
    lines += [f"- {key}: {value}" for key, value in machine().items()]
    lines += [f"- load average (1 min) before the first run: {load:.2f}"]
    lines += ["", "## Versions", ""]
    lines += [f"- {key}: {value}" for key, value in tools.items()]
    lines += ["", "## Results", "", "| comparison | metric | uploader-tui | peer | ratio |", "|---|---|---|---|---|"]
    lines += [f"| {' | '.join(r)} |" for r in rows]
    lines += ["", "## Goals", "", "| goal | measured | |", "|---|---|---|"]
    lines += [f"| {goal} | {value} | {'met' if ok else '**missed**'} |" for goal, value, ok in goals]
    lines += ["", "## Setup", ""] + setup
    lines += [
        "",
        "## Commands",
        "",
        "`$PORT` is nginx's port, `$REF_PORT` the reference server's. Shown as run in the warm-up round;",
        "every run gets its own journal file and, for WebDAV and S3, its own remote folder.",
        "",
    ]
    lines += [f"- {key}: `{command}`" for key, command in bench.commands.items()]
    return "\n".join(lines) + "\n"
