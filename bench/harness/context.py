"""The running bench: the binaries, the plain nginx every comparison may use, the commands and the results."""
import shlex
from pathlib import Path

from .common import REPO
from .servers import Nginx


class Bench:
    def __init__(self, binaries: Path, runs: int, big_runs: int, queue_route: str) -> None:
        self.tui = binaries / "uploader-tui"
        self.server = binaries / "uploader-server"
        self.runs, self.big_runs = runs, big_runs
        self.queue_route = queue_route
        self.nginx = Nginx()
        self.commands: dict[str, str] = {}
        self.results: dict = {}
        self.skipped: dict[str, str] = {}  # comparison key → why it could not run here

    def remember(self, key: str, argv: list[str]) -> None:
        """The command of `key` as the report shows it: paths relative to the checkout, ports as variables."""
        if key not in self.commands:
            text = shlex.join(argv).replace(str(REPO) + "/", "")
            self.commands[key] = text.replace(f"127.0.0.1:{self.nginx.port}", "127.0.0.1:$PORT")
