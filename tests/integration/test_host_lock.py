"""The executor installs the host lock's exact versions (hash-checked) on a rented host,
through the platform's proxy hook and package mirror — on the loopback OpenSSH host."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rgt.remote.jobs import RemoteLayout
from rgt.remote.network import HOST_LOCK, HostNetwork
from rgt.remote.runner import RemoteRunner

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
NAME, VERSION = "rgt-lock-probe", "1.0"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def probe_wheel(index: Path) -> Path:
    """A real (tiny) wheel in a PEP 503 index that exists nowhere else: only the platform's
    mirror can serve it."""
    info = f"rgt_lock_probe-{VERSION}.dist-info"
    files = {"rgt_lock_probe/__init__.py": f"__version__ = {VERSION!r}\n".encode(),
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
                                 .encode(),
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: rgt-tests\nRoot-Is-Purelib: true\n"
                              b"Tag: py3-none-any\n"}
    record = "\n".join([*(_record_line(n, d) for n, d in files.items()), f"{info}/RECORD,,"])
    wheel = index / NAME / f"rgt_lock_probe-{VERSION}-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in {**files, f"{info}/RECORD": record.encode() + b"\n"}.items():
            archive.writestr(name, data)
    (wheel.parent / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')
    return wheel


def test_the_host_gets_the_locks_versions_through_the_platforms_mirror(remote_host, remote_dir,
                                                                      tmp_path):
    wheel = probe_wheel(tmp_path / "index")
    venv = remote_dir / "image-python"  # the host's interpreter, without the package
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    layout = RemoteLayout(str(remote_dir))
    lock = Path(layout.code("tree")) / HOST_LOCK
    lock.parent.mkdir(parents=True)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    lock.write_text(f"{NAME}=={VERSION} --hash=sha256:{digest}\n")
    network = HostNetwork(f"touch {remote_dir}/proxy-hook-ran",
                          {"PIP_INDEX_URL": (tmp_path / "index").as_uri()})
    runner = RemoteRunner(remote_host, layout, python=str(venv / "bin" / "python"),
                          network=network)
    runner.pushed["tree"] = {HOST_LOCK: digest}
    runner.install_requirements("tree", ["numpy"])
    installed = subprocess.run([str(venv / "bin" / "python"), "-c",
                                f"import importlib.metadata as m; print(m.version({NAME!r}))"],
                               capture_output=True, text=True, check=True, timeout=60)
    assert installed.stdout.strip() == VERSION
    assert (remote_dir / "proxy-hook-ran").exists()

