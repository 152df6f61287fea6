"""Running a tool under GNU time and hyperfine, alternating tools round by round, and the statistics."""
import json
import shlex
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .common import KIB, WORK, BenchError, log
from .processes import PROCESSES

GNU_TIME_FORMAT = "%M %U %S %e"  # peak RSS KiB, user s, system s, elapsed s


@dataclass
class Run:
    """One measured run of one tool."""

    seconds: float
    rss_kib: int
    user: float
    system: float
    exit_code: int
    extra: dict = field(default_factory=dict)


def parse_gnu_time(path: Path) -> tuple[int, float, float, int]:
    """(peak RSS KiB, user s, system s, exit code) from `/usr/bin/time -f GNU_TIME_FORMAT -o path`."""
    lines = path.read_text().strip().splitlines()
    exit_code = 0
    for line in lines[:-1]:
        if line.startswith("Command exited with non-zero status"):
            exit_code = int(line.rsplit(" ", 1)[1])
        elif line.startswith("Command terminated by signal"):
            exit_code = 128 + int(line.rsplit(" ", 1)[1])
    rss, user, system, _ = lines[-1].split()
    return int(rss), float(user), float(system), exit_code


def timed(argv: list[str], time_file: Path) -> list[str]:
    return ["/usr/bin/time", "-f", GNU_TIME_FORMAT, "-o", str(time_file)] + argv


def run_hyperfine(name: str, argv: list[str], env: dict | None = None) -> Run:
    """One run of `argv` under GNU time, timed by `hyperfine --runs 1 -N`; its stdout goes to
    WORK/out/<name>.out."""
    out = WORK / "out"
    out.mkdir(parents=True, exist_ok=True)
    time_file, json_file, stdout_file = out / f"{name}.time", out / f"{name}.hyperfine.json", out / f"{name}.out"
    for path in (time_file, json_file, stdout_file):
        path.unlink(missing_ok=True)
    command = shlex.join(timed(argv, time_file))
    hyperfine = [
        "hyperfine", "--runs", "1", "-N", "--style", "none", "--ignore-failure",
        "--output", str(stdout_file), "--export-json", str(json_file), command,
    ]
    process = PROCESSES.spawn(
        name, hyperfine, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=open(out / f"{name}.hyperfine.err", "wb"), env=env)
    if PROCESSES.wait(process) != 0:
        raise BenchError(f"hyperfine failed for {name}: see {out / (name + '.hyperfine.err')}")
    result = json.loads(json_file.read_text())["results"][0]
    rss, user, system, exit_code = parse_gnu_time(time_file)
    return Run(seconds=result["times"][0], rss_kib=rss, user=user, system=system, exit_code=exit_code,
               extra={"stdout": stdout_file})


def summary_line(stdout_file: Path) -> dict:
    """The last NDJSON line of uploader-tui --json: the summary."""
    lines = stdout_file.read_text().strip().splitlines()
    summary = json.loads(lines[-1]) if lines else {}
    if summary.get("event") != "summary":
        raise BenchError(f"no summary line at the end of {stdout_file}")
    return summary


def check_summary(run: Run, files: int, name: str) -> dict:
    summary = summary_line(run.extra["stdout"])
    if run.exit_code != 0 or summary.get("done") != files:
        raise BenchError(f"{name}: exit {run.exit_code}, {summary.get('done')} of {files} done ({run.extra['stdout']})")
    run.extra["peak_rss_bytes"] = summary.get("peak_rss_bytes")
    return summary


def fresh_journal(name: str) -> Path:
    folder = WORK / "journals"
    folder.mkdir(parents=True, exist_ok=True)
    journal = folder / f"{name}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(journal) + suffix).unlink(missing_ok=True)
    return journal


def drop_journal(journal: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(journal) + suffix).unlink(missing_ok=True)


def alternate(label: str, rounds: int, tools: list[tuple[str, Callable[[str], Run]]]) -> dict[str, list[Run]]:
    """A warm-up round (not counted), then `rounds` counted rounds; the tools' order flips every round
    (A B, B A, A B, ...) so neither always goes first. Each tool is called with a unique run name."""
    results: dict[str, list[Run]] = {name: [] for name, _ in tools}
    for round_index in range(rounds + 1):
        order = tools if round_index % 2 == 0 else list(reversed(tools))
        for name, measure in order:
            tag = "warm-up" if round_index == 0 else f"{round_index}/{rounds}"
            run = measure(f"{label}-{name}-{round_index}")
            log(f"  {label} {tag:>7} {name:<16} {run.seconds:8.3f} s  RSS {run.rss_kib / KIB:7.1f} MiB"
                f"  user {run.user:6.2f} s  sys {run.system:6.2f} s")
            if round_index > 0:
                results[name].append(run)
    return results


def med(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float], digits: int) -> str:
    return f"{med(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"
