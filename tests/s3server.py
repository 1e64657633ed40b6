"""A real S3-compatible server on 127.0.0.1 for tests: moto's standalone server (``moto[server]``)
in a process of its own, standing for a bucket the user owns (AWS S3, MinIO, R2).

``start_s3(state_dir)`` starts it on a free port and returns an ``S3Server``: its endpoint, a
pair of credentials, ``client()`` and ``make_bucket(name)``. With ``auth=True`` the server checks
signatures (moto's IAM: a user with an access key is created first), so wrong credentials are
refused as a real bucket refuses them. The server is stopped by its pid (``stop()``), never by
name. Reusable by any test that needs a bucket (mirrors, DVC remotes).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REGION = "us-east-1"
# moto lets the first N requests through unsigned: the ones that create the IAM user below.
UNSIGNED_SETUP_REQUESTS = 3
ALLOW_ALL = {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


class S3Missing(RuntimeError):
    """moto's server is not installed (the dev extra brings ``moto[server]``)."""


@dataclass
class S3Server:
    """A running local S3 server and credentials it accepts."""

    endpoint: str
    process: subprocess.Popen
    access_key: str
    secret_key: str

    def env(self) -> dict[str, str]:
        """The environment a boto3 client (or a host-side mirror) reads its credentials from."""
        return {"AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key,
                "AWS_DEFAULT_REGION": REGION}

    def client(self, secret_key: str | None = None):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=self.access_key,
                            aws_secret_access_key=secret_key or self.secret_key)

    def make_bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"moto_server exited with status {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"moto_server did not listen on 127.0.0.1:{port} within {timeout} s")


def _signed_user(endpoint: str) -> tuple[str, str]:
    """An IAM user allowed everything, and its access key (made with the unsigned requests)."""
    import boto3

    iam = boto3.client("iam", endpoint_url=endpoint, region_name=REGION,
                       aws_access_key_id="setup", aws_secret_access_key="setup")
    iam.create_user(UserName="rgt")
    key = iam.create_access_key(UserName="rgt")["AccessKey"]
    iam.put_user_policy(UserName="rgt", PolicyName="all", PolicyDocument=json.dumps(ALLOW_ALL))
    return key["AccessKeyId"], key["SecretAccessKey"]


def start_s3(state: Path, auth: bool = False) -> S3Server:
    """Start moto's S3 server on a free loopback port (its log in ``state/moto.log``)."""
    binary = Path(sys.executable).parent / "moto_server"
    if not binary.exists():
        raise S3Missing(f"{binary} not found: pip install 'moto[server]' (the dev extra has it)")
    state.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {**os.environ, **({"INITIAL_NO_AUTH_ACTION_COUNT": str(UNSIGNED_SETUP_REQUESTS)}
                            if auth else {})}
    with open(state / "moto.log", "wb") as log:
        process = subprocess.Popen([str(binary), "-H", "127.0.0.1", "-p", str(port)], env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        _wait_for(port, process)
        keys = _signed_user(endpoint) if auth else ("testing", "testing")
    except BaseException:
        process.kill()
        raise
    return S3Server(endpoint, process, *keys)
