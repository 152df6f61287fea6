"""moto's S3 server on 127.0.0.1 (PyPI `moto[server]`), and boto3 to make, list and empty its buckets outside the
timed part."""
import os
import subprocess
import sys

from .common import WORK
from .processes import PROCESSES
from .servers import free_port, wait_for_port

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench-secret", "AWS_DEFAULT_REGION": "us-east-1"}


def unavailable() -> str | None:
    try:
        import boto3  # noqa: F401
        import moto.server  # noqa: F401
    except ImportError as error:
        return f"moto or boto3 is not installed ({error.name}); `make bench` installs them"
    return None


class Moto:
    def __init__(self) -> None:
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.env = {**os.environ, **CREDENTIALS}

    def start(self) -> None:
        WORK.mkdir(parents=True, exist_ok=True)
        self.process = PROCESSES.spawn(
            "moto", [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(WORK / "moto.log", "wb"), env=self.env)
        wait_for_port(self.port, self.process, "moto", timeout=60)

    def stop(self) -> None:
        if self.process:
            PROCESSES.stop(self.process.pid)
            self.process = None

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"], region_name="us-east-1")

    def make_bucket(self, bucket: str) -> None:
        self.client().create_bucket(Bucket=bucket)

    def take(self, bucket: str, prefix: str) -> dict[str, int]:
        """The sizes of the objects under `prefix`, which are then deleted (keeps moto's memory flat)."""
        s3 = self.client()
        sizes: dict[str, int] = {}
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            sizes.update({item["Key"][len(prefix):]: item["Size"] for item in page.get("Contents", [])})
        keys = [{"Key": prefix + key} for key in sizes]
        for start in range(0, len(keys), 1000):
            s3.delete_objects(Bucket=bucket, Delete={"Objects": keys[start:start + 1000]})
        return sizes
