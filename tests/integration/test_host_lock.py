"""The executor installs the host lock's exact versions (hash-checked) on a rented host,
through the platform's proxy hook and package mirror, and the modules a training job declares
(``job.packages``) when the host lacks them — on the loopback OpenSSH host."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rgt.config import load_config
from rgt.remote.deploy import job_packages
from rgt.remote.jobs import RemoteLayout
from rgt.remote.network import HOST_LOCK, HostNetwork
from rgt.remote.runner import RemoteEnvironmentError, RemoteRunner

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


def image_python(remote_dir: Path) -> Path:
    """The host's interpreter: a bare venv, without the probe package (nor torch)."""
    venv = remote_dir / "image-python"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    return venv / "bin" / "python"


def image_with_our_packages(remote_dir: Path) -> Path:
    """A host image that has torch and what rgt needs (this environment's packages, through a
    .pth file) but not the probe package."""
    python = image_python(remote_dir)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], capture_output=True, text=True, check=True,
                          timeout=60).stdout.strip()
    ours = [path for path in sys.path if path.endswith("site-packages")]
    (Path(site) / "image.pth").write_text("\n".join(ours) + "\n")
    return python


def installed_version(python: Path) -> str:
    return subprocess.run([str(python), "-c", f"import importlib.metadata as m; "
                           f"print(m.version({NAME!r}))"], capture_output=True, text=True,
                          timeout=60).stdout.strip()


def test_the_host_gets_the_locks_versions_through_the_platforms_mirror(remote_host, remote_dir,
                                                                      tmp_path):
    wheel = probe_wheel(tmp_path / "index")
    venv = image_python(remote_dir).parent.parent
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
    assert installed_version(venv / "bin" / "python") == VERSION
    assert (remote_dir / "proxy-hook-ran").exists()


def job_config(packages: dict[str, str]):
    return load_config({
        "defaults": {"job": {"command": "python train.py", "packages": packages,
                             "metrics": {"loss": {"direction": "lower"}}},
                     "checkpoint": {"keep": 2, "mtbf_hours": 6.0, "heartbeat_seconds": 5}},
        "experiments": {"e": {"baseline": "a", "seeds": [1], "variants": {"a": {}}}}})


def environment_refusal(runner: RemoteRunner, packages: dict[str, str]) -> str:
    """The refusal of the environment check for a job declaring ``packages`` ("" if none)."""
    runner.extra_modules = job_packages(job_config(packages))
    runner._environment_checked = False
    try:
        runner.check_environment("tree")
    except RemoteEnvironmentError as refused:
        return f"{refused.message} | {refused.fix}"
    return ""


def test_a_jobs_declared_packages_are_installed_where_the_host_lacks_them(remote_host,
                                                                         remote_dir, tmp_path):
    probe_wheel(tmp_path / "index")
    python = image_with_our_packages(remote_dir)
    layout = RemoteLayout(str(remote_dir))
    Path(layout.code("tree")).mkdir(parents=True)
    runner = RemoteRunner(remote_host, layout, python=str(python), network=HostNetwork(
        None, {"PIP_INDEX_URL": (tmp_path / "index").as_uri()}))
    refused = environment_refusal(runner, {"rgt_lock_probe": "rgt-lock-probe==9.9"})
    assert "could not install rgt-lock-probe==9.9 (for rgt_lock_probe):" in refused
    assert "job.packages" in refused and installed_version(python) == ""
    assert environment_refusal(runner, {"rgt_lock_probe": f"{NAME}=={VERSION}"}) == ""
    assert installed_version(python) == VERSION  # from the platform's mirror
    # A requirement that does not provide the module the job imports: refused by name.
    refused = environment_refusal(runner, {"rgt_lock_probe.sub": f"{NAME}=={VERSION}"})
    assert f"still cannot import rgt_lock_probe.sub after installing {NAME}=={VERSION}" in refused

