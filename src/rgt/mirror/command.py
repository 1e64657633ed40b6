"""``rgt host-mirror`` (on the host): push each run's newest checkpoint to a bucket you own."""

from __future__ import annotations

import argparse

from rgt.base.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``host-mirror`` verb."""
    parser = subparsers.add_parser(
        "host-mirror", help="(runs on the host) push each run's newest checkpoint to a bucket",
        description="Started detached with the jobs when the profile names rgt-host-mirror. "
                    "Every interval, uploads each running run's newest complete checkpoint "
                    "(resumable, its sha256 checked against its marker), its marker and "
                    "MIRROR.json to the bucket, prunes it to the newest two, and tells the "
                    "trainer its checkpoint ceiling; exits once no job runs and the bucket "
                    "holds every run's newest checkpoint. Credentials come from the "
                    "environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), never argv.")
    parser.add_argument("--root", required=True, help="the project directory on this host")
    parser.add_argument("--target", required=True, help="s3://BUCKET/PREFIX")
    parser.add_argument("--endpoint", help="an S3-compatible service's URL (default: AWS S3)")
    parser.add_argument("--host-name", default="this host", help="the host's alias")
    parser.add_argument("--every", type=float, help="seconds between mirrors (default: the "
                                                    "formula of docs/mirror.md)")
    parser.add_argument("--mtbf-hours", type=float, default=6.0,
                        help="mean hours between preemptions, for the interval's formula")
    parser.set_defaults(func=run_host_mirror_verb)


def run_host_mirror_verb(args: argparse.Namespace) -> int:
    """Handler of ``rgt host-mirror``."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.mirror.bucket import parse_target
    from rgt.mirror.host_side import HostMirrorSettings, run_host_mirror

    for name in ("every", "mtbf_hours"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise ConfigError(f"--{name.replace('_', '-')} {value:g} is not positive",
                              "give a number above 0")
    return run_host_mirror(HostMirrorSettings(
        root=args.root, target=parse_target(args.target, args.endpoint), host=args.host_name,
        every_s=args.every, mtbf_hours=args.mtbf_hours))
