"""Every process the bench starts, so that all of them are stopped by PID."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .common import RUN_TIMEOUT, BenchError


class Processes:
    """Every process bench.py starts, so that all of them are stopped by PID.

    Each child leads a process group of its own (the group's ID is the child's PID): stopping it
    signals the group, which also reaches what it started (GNU time does not pass SIGTERM on to the
    tool it measures)."""

    def __init__(self) -> None:
        self.children: dict[int, tuple[str, subprocess.Popen]] = {}
        self.foreign: dict[int, str] = {}  # PIDs not our children (tmux servers daemonise)

    def spawn(self, label: str, argv: list[str], **kwargs) -> subprocess.Popen:
        process = subprocess.Popen(argv, start_new_session=True, **kwargs)
        self.children[process.pid] = (label, process)
        return process

    def adopt(self, label: str, pid: int) -> None:
        self.foreign[pid] = label

    def wait(self, process: subprocess.Popen, timeout: float = RUN_TIMEOUT) -> int:
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            label = self.children.get(process.pid, ("?",))[0]
            self.stop(process.pid)
            raise BenchError(f"{label} took over {timeout:.0f} s")
        self.children.pop(process.pid, None)
        return code

    def stop(self, pid: int) -> None:
        """SIGTERM to the process group, up to 10 s for a clean exit, then SIGKILL."""
        if pid in self.children:
            _, process = self.children.pop(pid)
            signal_group(pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            signal_group(pid, signal.SIGKILL)  # whatever is left of the group
            process.wait()
        elif pid in self.foreign:
            del self.foreign[pid]
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and pid_alive(pid):
                time.sleep(0.02)
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)

    def stop_all(self) -> None:
        for pid in list(self.foreign) + list(self.children):
            try:
                self.stop(pid)
            except Exception as error:  # keep stopping the others
                print(f"bench: could not stop PID {pid}: {error}", file=sys.stderr)


def signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not reaped by its parent) counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z"
    except OSError:
        return False


PROCESSES = Processes()
