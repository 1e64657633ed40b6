"""A real S3 endpoint on loopback for tests: moto's server (``moto[server]``, the dev extra) in
a process of its own, on a free port, with credentials that only it accepts.

Any test that needs S3 (a DVC remote, an off-host mirror) starts one through the session
fixture ``s3_server`` in ``conftest.py``, creates its own bucket with ``make_bucket`` and
points its client at ``endpoint`` with ``env()`` as the environment.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path


class S3ServerMissing(RuntimeError):
    """moto's server is not installed."""


@dataclass
class S3Server:
    """A running moto server: its endpoint URL, process and log."""

    endpoint: str
    process: subprocess.Popen = field(repr=False)
    log: Path
    access_key: str = "rgt-test-key"
    secret_key: str = "rgt-test-secret"
    region: str = "us-east-1"

    def env(self) -> dict[str, str]:
        """This environment plus the server's credentials (what boto3 and DVC read)."""
        return {**os.environ, "AWS_ACCESS_KEY_ID": self.access_key,
                "AWS_SECRET_ACCESS_KEY": self.secret_key, "AWS_DEFAULT_REGION": self.region}

    def make_bucket(self, name: str) -> str:
        """Create bucket ``name`` (a fresh one per test); its ``s3://`` URL."""
        import boto3

        client = boto3.client("s3", endpoint_url=self.endpoint, region_name=self.region,
                              aws_access_key_id=self.access_key,
                              aws_secret_access_key=self.secret_key)
        client.create_bucket(Bucket=name)
        return f"s3://{name}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_s3_server(workdir: Path, timeout: float = 60) -> S3Server:
    """Start moto's server on a free loopback port and wait until it answers."""
    try:
        import moto.server  # noqa: F401
    except ImportError as error:
        raise S3ServerMissing(f"moto[server] is not installed ({error}): `make setup` "
                              "installs it with the dev extra") from None
    port, log = free_port(), workdir / "moto.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                                    "-p", str(port)], stdout=out, stderr=subprocess.STDOUT)
    server = S3Server(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"moto server exited {process.returncode}: {log.read_text()}")
        try:
            urllib.request.urlopen(server.endpoint, timeout=2).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"moto server did not answer within {timeout:g} s: {log.read_text()}")
