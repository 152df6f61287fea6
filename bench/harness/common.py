"""Paths, sizes and the one error type of the bench."""
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
REPO = BENCH.parent
DATA = BENCH / "data"
WORK = BENCH / "work"
RESULTS = BENCH / "RESULTS.md"

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
CONCURRENCY = 8
RUN_TIMEOUT = 1800.0


def log(message: str) -> None:
    print(message, flush=True)


class BenchError(Exception):
    """A run that did not do what it should (wrong exit code, bytes missing at the server)."""
