"""Talk to the host for a pull: run the manifest builder, probe the job, move the bundle.

Parsing stays elsewhere (``rgt.pull.bundle``, ``rgt.down.gate``, ``rgt.remote.jobs``); every
function here is one or a few SSH exchanges.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path, PurePosixPath

from rgt.base.errors import RgtError
from rgt.base.hashing import sha256_bytes
from rgt.pull import manifest as builder
from rgt.pull.bundle import manifest_problems
from rgt.remote.jobs import JobStatus, RemoteLayout, parse_probe, probe_script
from rgt.remote.ssh import RemoteHost
from rgt.remote.transfer import TransferStats, pull

# The builder hashes every byte of a run on the host (~160 MB/s with a slow hasher).
BUILD_TIMEOUT_S = 3600
PROBE_TIMEOUT_S = 60
AREAS = dict(builder.SOURCES)


def run_builder(host: RemoteHost, python: str, args: list[str]) -> str:
    """Run ``rgt/pull/manifest.py`` on the host's ``python`` (source over stdin); its stdout.

    Raises:
        RgtError: the interpreter is missing, or the builder refused (its reason included).
    """
    source = Path(builder.__file__).read_bytes()
    result = host.run([python, "-", *args], stdin=source, timeout=BUILD_TIMEOUT_S, check=False)
    if result.exit_status == 127:
        raise RgtError(f"{host.spec.alias}: interpreter {python!r} not found",
                       fix="set python: for this host in config/hosts.yaml to the image's "
                           "interpreter (e.g. /usr/bin/python3)")
    if not result.ok:
        why = result.stderr.strip()[-2000:] or f"exit status {result.exit_status}"
        raise RgtError(f"{host.spec.alias}: the pull manifest builder failed: {why}",
                       fix="remove or replace the files named above on the host (symlinks are "
                           "never followed), then run the command again")
    return result.stdout


def build_manifest(host: RemoteHost, python: str, root: str, run_id: str,
                   weights_only: bool = False) -> dict:
    """Have the host (re)build and write ``jobs/<run_id>/PULL_MANIFEST.json``; return it
    (``weights_only``: without the checkpoint files).

    Raises:
        RgtError: the manifest is empty (no such run at ``root``) or invalid.
    """
    args = ["build", root, builder.check_run_id(run_id)]
    reply = run_builder(host, python, args + (["--weights-only"] if weights_only else []))
    try:
        manifest = json.loads(reply)
    except ValueError:
        manifest = None
    return _valid(manifest, run_id, host.spec.alias, root)


def _valid(manifest: object, run_id: str, alias: str, root: str) -> dict:
    problems = manifest_problems(manifest)
    if any(problem.kind == "empty" for problem in problems):
        raise RgtError(f"run {run_id} has no files on {alias} under {root}",
                       fix="check the run id (rgt status) and remote_root in config/hosts.yaml")
    if problems or manifest.get("run_id") != run_id:
        details = "; ".join(f"{p.path}: {p.detail}" for p in problems) or "another run id"
        raise RgtError(f"{alias}: invalid pull manifest for run {run_id}: {details}",
                       fix="run the same command again to rebuild it; report a bug if it "
                           "persists")
    return manifest


def survey_host(host: RemoteHost, python: str, root: str) -> str:
    """Rebuild the manifest of every run under ``root``; the builder's JSON reply (unparsed)."""
    return run_builder(host, python, ["survey", root])


def job_states(host: RemoteHost, root: str, run_ids: list[str]) -> dict[str, JobStatus]:
    """The job record of each run (``rgt.remote.jobs`` probe); runs with none are absent."""
    if not run_ids:
        return {}
    result = host.run(probe_script(RemoteLayout(root), run_ids), timeout=PROBE_TIMEOUT_S)
    return parse_probe(result.stdout)


def refuse_if_running(host: RemoteHost, root: str, run_id: str) -> None:
    """Raise when the run's job is still running on the host: its files are still changing."""
    status = job_states(host, root, [run_id]).get(run_id)
    if status is not None and status.state == "running":
        raise RgtError(f"run {run_id} is still running on {host.spec.alias} (pid {status.pid})",
                       fix="wait for it to finish (rgt watch), or stop it, then pull again")


def fetch_manifest(host: RemoteHost, root: str, manifest: dict, partial: Path) -> None:
    """Pull the host's ``PULL_MANIFEST.json`` into ``partial``, checked to be ``manifest``."""
    expected = sha256_bytes(builder.manifest_text(manifest).encode("utf-8"))
    pull(host, f"{root}/jobs/{manifest['run_id']}", [builder.MANIFEST], partial,
         expected={builder.MANIFEST: expected})


def transfer_bundle(host: RemoteHost, root: str, manifest: dict, partial: Path
                    ) -> TransferStats:
    """Pull every manifest file into ``partial`` (resumably, sha256 checked against it)."""
    groups: dict[str, dict[str, str]] = defaultdict(dict)
    for entry in manifest["files"]:
        prefix, *rest = PurePosixPath(entry["path"]).parts
        groups[prefix]["/".join(rest)] = entry["sha256"]
    totals = [0, 0, 0, 0.0]
    for prefix, expected in sorted(groups.items()):
        stats = pull(host, f"{root}/{AREAS[prefix]}/{manifest['run_id']}", sorted(expected),
                     partial / prefix, expected=expected)
        for index, value in enumerate((stats.files, stats.bytes_sent, stats.files_skipped,
                                       stats.seconds)):
            totals[index] += value
    return TransferStats(*totals)
