"""``rgt plan``: the runs a config asks for, with their run ids and smoke ids."""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``plan`` verb."""
    parser = subparsers.add_parser("plan", help="validate the config and list the planned runs")
    parser.add_argument("--config", default="config/config.yaml", help="config file")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run_plan)


def run_plan(args: argparse.Namespace) -> int:
    """Handler of ``rgt plan``."""
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.config import load_config
    from rgt.plan.runplan import plan_runs

    rows = [{"run_id": s.run_id, "smoke_id": s.smoke_id, "exp_id": s.exp_id,
             "variant": s.variant, "seed": s.seed} for s in plan_runs(load_config(args.config))]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print("{run_id}  smoke {smoke_id}  {exp_id}/{variant} seed {seed}".format(**row))
    return 0
