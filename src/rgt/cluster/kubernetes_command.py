"""``python -m rgt.cluster.kubernetes_command``: print the Kyverno policy a config needs.

    python -m rgt.cluster.kubernetes_command --config config/k8s.yaml > rgt-training-policy.yaml

A command of its own (not an ``rgt`` verb): it is run once when a cluster is set up.
"""

from __future__ import annotations

import argparse
import sys

import yaml

from rgt.base.errors import ConfigError
from rgt.cluster.kubernetes import durable_volume, persistent_volumes, policy
from rgt.config import load_config


def main(argv: list[str] | None = None) -> int:
    """Print the Kyverno policy for a config (``--config PATH``) as YAML."""
    parser = argparse.ArgumentParser(prog="python -m rgt.cluster.kubernetes_command")
    parser.add_argument("--config", default="config/config.yaml")
    parser.add_argument("--volume", nargs="+", default=["rgt-checkpoints:/mnt/rgt"],
                        help="the profile's kubernetes-persistent-volumes (name:path)")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config)
        durable_volume(config, persistent_volumes(args.volume))
    except ConfigError as error:
        print(f"error: {error.message}\n  fix: {error.fix}", file=sys.stderr)
        return error.exit_code
    sys.stdout.write(yaml.safe_dump(policy(config), sort_keys=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
