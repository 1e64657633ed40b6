"""``rgt pull RUN_ID --host ALIAS``: bring a run home, verified; ``--verify-only DIR`` re-checks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.hosts import add_host_options
from rgt.pull.manifest import ManifestError
from rgt.pull.manifest import check_run_id as check


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``pull`` verb."""
    parser = subparsers.add_parser(
        "pull", help="pull a run from a host into export/<run-id>, verified by sha256 and load",
        description="Have the host build the run's PULL_MANIFEST.json, pull every file it lists "
                    "into <export>/.partial/<run-id> (resumable), verify sizes, hashes and "
                    "checkpoints, write PULL_VERIFIED.json and move the bundle to "
                    "<export>/<run-id>; a bundle that fails goes to quarantine/ with a reason. "
                    "With --verify-only DIR, only verify a bundle already on disk.")
    parser.add_argument("run_id", nargs="?", metavar="RUN_ID", help="the run to pull")
    parser.add_argument("--host", metavar="ALIAS", help="the host's alias in config/hosts.yaml")
    parser.add_argument("--all", action="store_true",
                        help="every run on the host that is not running and not yet pulled "
                             "with its current manifest (in parallel, each resumable)")
    parser.add_argument("--parallel", type=int, default=4, metavar="N",
                        help="with --all: runs pulled at once, one connection each")
    parser.add_argument("--weights-only", action="store_true",
                        help="leave the checkpoint files on the host (their markers come): the "
                             "sealed run, logs and job record; rgt down accepts it only while "
                             "the mirror holds the newest checkpoint")
    parser.add_argument("--refresh", action="store_true",
                        help="when the host's copy changed after a verified pull: verify the "
                             "host's copy and keep the old bundle aside in quarantine/ with the "
                             "reason (without it, such a pull is refused before any transfer)")
    add_host_options(parser)
    parser.add_argument("--export", default="export", help="where verified runs go")
    parser.add_argument("--verify-only", metavar="DIR", help="verify the bundle at DIR only")
    parser.add_argument("--json", action="store_true", help="with --verify-only: print JSON")
    parser.add_argument("--allow-unsafe-pickle", action="store_true",
                        help="accept checkpoints whose pickle needs more than tensors (they are "
                             "then not unpickled, so not checked for NaN/Inf)")
    parser.set_defaults(func=run_pull)


def run_pull(args: argparse.Namespace) -> int:
    """Handler of ``rgt pull``."""
    if args.verify_only:
        if args.run_id or args.host:
            raise RgtError("rgt pull --verify-only DIR takes no RUN_ID or --host",
                           fix="run `rgt pull --verify-only DIR` alone")
        return verify_only(Path(args.verify_only), args.json, args.allow_unsafe_pickle)
    if args.all:
        if args.run_id or not args.host:
            raise RgtError("rgt pull --all takes --host ALIAS and no RUN_ID",
                           fix="run `rgt pull --all --host ALIAS`")
        if args.parallel < 1:
            raise RgtError(f"--parallel {args.parallel} is below 1",
                           fix="give how many runs to pull at once, e.g. --parallel 4")
        return pull_all(args)
    if not args.run_id or not args.host:
        raise RgtError("rgt pull needs a RUN_ID and --host ALIAS (or --all --host ALIAS, or "
                       "--verify-only DIR)", fix="run `rgt pull RUN_ID --host ALIAS`")
    return pull_run(args.run_id, args.host, Path(args.hosts), args.ssh_config,
                    Path(args.export), args.allow_unsafe_pickle, args.weights_only, args.refresh)


def verify_only(bundle: Path, as_json: bool, allow_unsafe: bool) -> int:
    """Verify ``bundle`` and print the problems; 0 only when there are none."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.pull.bundle import verify_bundle

    if not bundle.is_dir():
        raise RgtError(f"--verify-only {bundle}: no such directory",
                       fix="give the directory of a pulled run (e.g. export/<run-id>)")
    problems = verify_bundle(bundle, allow_unsafe_pickle=allow_unsafe)
    if as_json:
        print(json.dumps({"ok": not problems,
                          "problems": [problem.as_dict() for problem in problems]}, indent=2))
    else:
        print_problems(f"{bundle}", problems)
    return 0 if not problems else 1


def print_problems(title: str, problems: list) -> None:
    """A readable table of ``problems`` (or one line saying the bundle holds)."""
    # lazy (--help imports every verb): loads rich
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not problems:
        console.print(f"{title}: verified, every file matches its manifest")
        return
    table = Table(title=f"{title}: {len(problems)} problem(s)")
    for column in ("path", "kind", "detail"):
        table.add_column(column, overflow="fold")
    for problem in problems:
        table.add_row(problem.path, problem.kind, problem.detail)
    console.print(table)


def _host(alias: str, hosts: Path):
    # lazy (--help imports every verb): loads jsonschema, yaml
    from rgt.hosts.registry import host_entry

    return host_entry(alias, hosts)


def pull_run(run_id: str, alias: str, hosts: Path, ssh_config: str | None, export: Path,
             allow_unsafe: bool, weights_only: bool = False, refresh: bool = False) -> int:
    """Pull, verify and close out one run; raise ``RgtError`` when it ends in quarantine."""
    # lazy (--help imports every verb): loads paramiko, rich, yaml
    from rgt.pull.fetch import refuse_if_running
    from rgt.pull.home import pull_bundle
    from rgt.remote.ssh import RemoteHost, resolve_host

    check_run_id(run_id)
    entry = _host(alias, hosts)
    root = run_root(entry, run_id)
    with RemoteHost(resolve_host(alias, entry.ssh_config_for(ssh_config))) as host:
        refuse_if_running(host, root, run_id)
        pulled = pull_bundle(host, entry.python, root, run_id, export, weights_only,
                             allow_unsafe, say=lambda line: print(line, flush=True),
                             refresh=refresh)
    return report(pulled.outcome, run_id)


def run_root(entry, run_id: str) -> str:
    """Where the run lives on the host: the root the launch ledger last launched it under (a
    host whose record moved keeps its older runs where they are), else the recorded one."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.remote.ledger import launches

    roots = [launch.root for launch in launches(Path.cwd(), entry.alias)
             if launch.run_id == run_id]
    return roots[-1] if roots else entry.root()


def pull_all(args: argparse.Namespace) -> int:
    """``rgt pull --all --host H``: every run not running and not pulled with its current
    manifest, ``--parallel`` at a time; 0 only when each ends verified."""
    # lazy (--help imports every verb): loads paramiko, rich, yaml
    from rgt.pull.many import pull_many

    entry = _host(args.host, Path(args.hosts))
    outcomes = pull_many(entry, entry.root(), args.ssh_config, Path(args.export),
                         args.parallel, args.weights_only, args.allow_unsafe_pickle)
    failed = {run_id: why for run_id, why in outcomes.items() if why}
    for run_id, why in sorted(outcomes.items()):
        print(f"{run_id}: {why or 'verified'}")
    if failed:
        raise RgtError(f"{len(failed)} of {len(outcomes)} runs on {args.host} did not end "
                       "verified (listed above)",
                       fix=f"run `rgt pull --all --host {args.host}` again: it resumes each "
                           "transfer and skips what is verified")
    print(f"{len(outcomes)} runs on {args.host}: every one verified in {args.export}")
    return 0


def report(outcome, run_id: str) -> int:
    """Print where the attempt ended; raise for a quarantined one."""
    if outcome.ok:
        print(f"{outcome.path}: verified" if outcome.state == "exported"
              else f"{outcome.path}: already pulled and verified with the host's manifest; "
                   "nothing to do")
        return 0
    if outcome.problems:
        print_problems(f"run {run_id}", outcome.problems)
    raise RgtError(f"run {run_id} failed closeout ({outcome.reason}); the attempt is kept in "
                   f"{outcome.path} (see its REASON.json)",
                   fix="read the problems above; pull again to make a fresh attempt")


def check_run_id(run_id: str) -> str:
    """``run_id`` when it is a plain directory name; a user error otherwise."""
    try:
        return check(run_id)
    except ManifestError as error:
        raise RgtError(str(error), fix="give a run id as `rgt status` lists it") from None
