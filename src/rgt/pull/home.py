"""Bring one run home as a verified bundle: the host builds the run's manifest, the bundle is
pulled resumably into ``export/.partial/<run-id>``, verified and closed out.

``rgt pull`` and the executor (for each training job it finishes) both come through here, so a
run Snakemake pulled and verified is a bundle ``rgt down`` accepts: nothing is pulled twice.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.pull.bundle import Problem, verify_bundle
from rgt.pull.closeout import OTHER_MANIFEST, Outcome, closeout, partial_dir
from rgt.pull.compare import CHANGED, compare_bundle
from rgt.pull.fetch import build_manifest, fetch_manifest, transfer_bundle
from rgt.remote.ssh import RemoteHost
from rgt.remote.transfer import TransferStats

VERIFY_TIMEOUT_S = 3600


@dataclass(frozen=True)
class Pulled:
    """Where a pull ended, what crossed the wire (None: already verified with this manifest),
    and the manifest pulled."""

    outcome: Outcome
    stats: TransferStats | None
    manifest: dict

    @property
    def bundle(self) -> Path | None:
        """The verified bundle's directory: ``export/<run-id>``, or the verified attempt that
        went to quarantine only because ``export/<run-id>`` holds another manifest."""
        if self.outcome.ok or (self.outcome.reason.startswith(OTHER_MANIFEST.split("{")[0])
                               and not self.outcome.problems):
            return self.outcome.path
        return None


def pull_bundle(host: RemoteHost, python: str, root: str, run_id: str, export: Path,
                weights_only: bool = False, allow_unsafe: bool = False,
                say: Callable[[str], object] = print,
                verify: Callable[[Path, str, bool], list[Problem]] = verify_bundle,
                refresh: bool = False) -> Pulled:
    """Pull ``run_id`` from ``root`` on ``host`` into ``export/<run-id>``, verified.

    ``weights_only`` leaves the checkpoint files on the host (their markers come). A bundle
    already verified here with this manifest (or holding all of it) makes this a no-op; one
    that the host's copy no longer matches is replaced only with ``refresh`` (the old one kept
    aside in quarantine), and is otherwise a refusal before anything is transferred. Raises
    ``RgtError`` when the host cannot build the manifest or a transfer fails (the attempt stays
    in ``export/.partial/<run-id>`` and the same call resumes it).
    """
    export = Path(export)
    manifest = build_manifest(host, python, root, run_id, weights_only)
    comparison = compare_bundle(export, run_id, manifest)
    if comparison.nothing_to_do:
        return Pulled(Outcome("already", export / run_id), None, manifest)
    if comparison.kind == CHANGED and not refresh:
        raise changed_on_host(run_id, host.spec.alias, export, comparison)
    partial, totals = partial_dir(export, run_id), manifest["totals"]
    kind = "weights-only bundle" if weights_only else "bundle"
    say(f"pulling run {run_id} from {host.spec.alias} ({kind}): {totals['files']} files, "
        f"{totals['bytes']:,} bytes into {partial}")
    fetch_manifest(host, root, manifest, partial)
    stats = transfer_bundle(host, root, manifest, partial)
    say(f"transferred {stats.bytes_sent:,} bytes ({stats.files} files; {stats.files_skipped} "
        "already here); verifying")
    return Pulled(closeout(export, run_id, allow_unsafe, verify, refresh), stats, manifest)


def changed_on_host(run_id: str, alias: str, export: Path, comparison) -> RgtError:
    """The refusal of a pull whose bundle here the host's copy no longer matches."""
    return RgtError(f"{export / run_id} holds a bundle of {run_id} verified "
                    f"{comparison.verified_at or 'earlier'}, and the host's copy has changed "
                    f"since: {comparison.describe()}; nothing was transferred",
                    fix=f"`rgt pull {run_id} --host {alias} --refresh` verifies the host's copy "
                        "and keeps the old bundle aside in quarantine/ with the reason")


def verify_in_subprocess(bundle: Path, run_id: str, allow_unsafe: bool) -> list[Problem]:
    """``verify_bundle`` run by ``rgt pull --verify-only`` in a process of its own (it loads
    checkpoints with torch; the Snakemake process must stay free of torch). ``run_id`` is the
    bundle directory's name, as ``--verify-only`` expects."""
    command = [sys.executable, "-m", "rgt", "pull", "--verify-only", str(bundle), "--json"]
    if allow_unsafe:
        command.append("--allow-unsafe-pickle")
    done = subprocess.run(command, capture_output=True, text=True, timeout=VERIFY_TIMEOUT_S,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        raise RgtError(f"verifying {bundle} failed: {(done.stderr or done.stdout)[-2000:]}",
                       f"run `rgt pull --verify-only {bundle}` to see why") from None
    return [Problem(**problem) for problem in reply["problems"]]


def place_outputs(bundle: Path, outputs: list[Path]) -> None:
    """The sealed run of a training job, from its verified bundle's ``run/``: every file it
    holds (``model.pt``, ``predictions.parquet``: what ``rgt verify`` and delivery read),
    then Snakemake's declared ``outputs`` last, each through a temporary name so a file is
    whole or absent."""
    source = Path(bundle) / "run"
    for output in outputs:
        if not (source / output.name).is_file():
            raise RgtError(f"the verified bundle {bundle} has no run/{output.name}",
                           "the run did not write that output; check its log")
    declared = {output.name: output for output in outputs}
    home = outputs[0].parent if outputs else None
    extras = [path for path in sorted(source.rglob("*")) if path.is_file()
              and path.relative_to(source).as_posix() not in declared]
    for path in extras if home is not None else []:
        _copy(path, home / path.relative_to(source))
    for name, output in declared.items():
        _copy(source / name, output)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".tmp")
    shutil.copyfile(source, temporary)
    os.replace(temporary, target)
