"""Any Snakemake job on the rented host, not only ``rgt train``.

A rule a user sends to the GPU (``rule finetune`` in their own Snakefile) runs there as
Snakemake itself would run it on a cluster node: its workflow sources and input files are pushed
into a working directory of its own, Snakemake's job command runs there detached, and the job's
products are pulled back, sha256-verified. The job is keyed by what it computes (rules, outputs,
and the bytes of every pushed file), so a restarted Snakemake reattaches to it — or collects it
when it finished meanwhile — instead of running it twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.base.hashing import digest_json, sha256_file
from rgt.remote.transfer import validate_relpath

KEY_PREFIX = "sm-"


class SnakeJobError(RgtError):
    """A Snakemake job cannot be shipped to the host as it is declared."""


@dataclass(frozen=True)
class SnakeJob:
    """What a Snakemake job needs on the host and brings back."""

    key: str
    files: dict[str, Path]  # relative path on the host -> local file (sources and inputs)
    products: tuple[str, ...]  # relative paths pulled back (outputs, logs, benchmarks)
    command: str  # Snakemake's own job command, run in the job's working directory


def snake_job(workdir: Path, rules: Iterable[str], sources: Iterable[str],
              inputs: Iterable[str], products: Iterable[str], command: str) -> SnakeJob:
    """Describe one job from Snakemake's plain data (paths relative to ``workdir``).

    Raises:
        SnakeJobError: an input or product outside the working directory, or an input that
            does not exist here.
    """
    files = {**_files(workdir, sources, "source"), **_files(workdir, inputs, "input")}
    rels = tuple(sorted({_relative(workdir, path, "output") for path in products}))
    key = KEY_PREFIX + digest_json({
        "rules": sorted(rules), "products": list(rels),
        "files": {rel: sha256_file(path) for rel, path in sorted(files.items())},
    })[:16]
    return SnakeJob(key, files, rels, command)


def _files(workdir: Path, paths: Iterable[str], kind: str) -> dict[str, Path]:
    """Every file named by ``paths``; a directory stands for the files below it."""
    found = {}
    for path in paths:
        rel = _relative(workdir, path, kind)
        local = workdir / rel
        if local.is_dir():
            found.update({f"{rel}/{child.relative_to(local).as_posix()}": child
                          for child in sorted(local.rglob("*")) if child.is_file()})
        elif local.is_file():
            found[rel] = local
        else:
            raise SnakeJobError(f"{kind} file {path} does not exist here",
                                "create it (or let the rule that makes it run first)")
    return found


def _relative(workdir: Path, path: str, kind: str) -> str:
    """``path`` relative to ``workdir``, refused when it lies outside (the host cannot see it)."""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            candidate = candidate.relative_to(workdir)
        except ValueError:
            raise SnakeJobError(
                f"{kind} file {path} lies outside the working directory {workdir}",
                "keep a remote rule's files below the directory Snakemake runs in") from None
    try:
        return validate_relpath(candidate.as_posix())
    except RgtError:
        raise SnakeJobError(f"{kind} file {path} cannot be shipped to the host",
                            "name it with a plain relative path below the working directory"
                            ) from None
