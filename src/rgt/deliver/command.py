"""``rgt aggregate``, ``rgt source-data`` and ``rgt figure``: the DELIVER verbs (bars over
variants and curves over steps, as the config's ``figures:`` declares them).

Registering imports nothing heavy; matplotlib is imported only when a figure is rendered.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rgt.base.files import write_bytes, write_json
from rgt.deliver.aggregate import AGGREGATE_SCHEMA, incomplete_cells, write_aggregate
from rgt.deliver.inputs import DeliveryError, file_record, read_document
from rgt.deliver.spec import FigureSpec
from rgt.plan.rundirs import add_only_option

VERIFY_SCHEMA = "rgt/verify/v1"
AGGREGATE_PATH = "evidence/results.json"
VERIFY_PATH = "verify/report.json"
CONFIG_PATH = "config/config.yaml"


def register(subparsers) -> None:
    """Add the ``aggregate``, ``source-data`` and ``figure`` verbs."""
    _register_aggregate(subparsers)
    _register_source_data(subparsers)
    _register_figure(subparsers)


def _register_aggregate(subparsers) -> None:
    parser = subparsers.add_parser(
        "aggregate", help="summarise every finished run over seeds (evidence/results.json)"
    )
    parser.add_argument(
        "--runs", default="runs", help="directory of runs/<run-id>/ (default: runs)"
    )
    parser.add_argument("--out", default=AGGREGATE_PATH, help=f"default: {AGGREGATE_PATH}")
    parser.add_argument("--config", default=CONFIG_PATH,
                        help="the config whose curve figures name the logged scalars to keep "
                             f"(default: {CONFIG_PATH}, when there is one)")
    add_only_option(parser)
    parser.set_defaults(func=run_aggregate)


def _register_source_data(subparsers) -> None:
    parser = subparsers.add_parser(
        "source-data",
        help="write a figure's source rows at full precision (figures/<fig>/source_data.csv)",
    )
    parser.add_argument("--aggregate", default=AGGREGATE_PATH, help=f"default: {AGGREGATE_PATH}")
    _figure_options(parser)
    parser.add_argument("--out", help="default: figures/<fig>/source_data.csv")
    parser.set_defaults(func=run_source_data)


def _register_figure(subparsers) -> None:
    parser = subparsers.add_parser(
        "figure", help="render a figure, re-open it (pixel gate) and write its provenance"
    )
    _figure_options(parser)
    parser.add_argument("--source", help="default: figures/<fig>/source_data.csv")
    parser.add_argument("--verify", default=VERIFY_PATH, help=f"default: {VERIFY_PATH}")
    parser.add_argument(
        "--aggregate",
        default=AGGREGATE_PATH,
        help=f"the aggregate the source data came from, hashed into provenance "
        f"(default: {AGGREGATE_PATH})",
    )
    parser.add_argument("--out-dir", help="default: figures/<fig>")
    parser.set_defaults(func=run_figure)


def _figure_options(parser) -> None:
    parser.add_argument("--fig", required=True, help="a figure id of the config's figures:")
    parser.add_argument("--config", default=CONFIG_PATH,
                        help=f"the config declaring the figure (default: {CONFIG_PATH})")


def _config(args: argparse.Namespace):
    """The config of ``--config``; None with no config file at the default place (a folder of
    results alone: the built-in trainer's figures)."""
    from rgt.config import load_config  # lazy (--help imports every verb): loads pydantic, yaml

    if args.config == CONFIG_PATH and not Path(CONFIG_PATH).is_file():
        return None
    return load_config(args.config)


def _spec(args: argparse.Namespace) -> FigureSpec:
    """The figure ``--fig`` of the config."""
    from rgt.deliver.registry import figure_spec  # lazy (--help): loads the config models

    return figure_spec(_config(args), args.fig)


def run_aggregate(args: argparse.Namespace) -> int:
    """Handler of ``rgt aggregate``."""
    # lazy (--help imports every verb): loads the config models
    from rgt.deliver.registry import curve_specs, report_splits

    config = _config(args)
    aggregate = write_aggregate(args.runs, args.out, args.only, curve_specs(config),
                                report_splits(config))
    cells = sum(
        len(cells) for variants in aggregate["experiments"].values() for cells in variants.values()
    )
    print(
        f"{args.out}: {len(aggregate['inputs'])} runs, {cells} metric cells, "
        f"{len(aggregate['skipped'])} runs skipped",
        file=sys.stderr,
    )
    for line in incomplete_cells(aggregate):
        print(f"  warning: {line}", file=sys.stderr)
    return 0


def run_source_data(args: argparse.Namespace) -> int:
    """Handler of ``rgt source-data``."""
    # lazy (--help imports every verb): loads pandas
    from rgt.deliver.source_data import write_source_data

    spec = _spec(args)
    out = args.out or f"figures/{spec.fig_id}/source_data.csv"
    rows = write_source_data(args.aggregate, spec, out)
    print(f"{out}: {len(rows)} rows", file=sys.stderr)
    return 0


def run_figure(args: argparse.Namespace) -> int:
    """Handler of ``rgt figure``: render, gate, record; a failed gate is reported, exit 0."""
    spec = _spec(args)
    out_dir = Path(args.out_dir or f"figures/{spec.fig_id}")
    source = args.source or (out_dir / "source_data.csv").as_posix()
    provenance = build_figure(spec, source, args.verify, args.aggregate, out_dir)
    report_gate(out_dir, provenance["pixel_gate"])
    return 0


def load_figure_rows(source: str | Path, spec: FigureSpec) -> list[dict]:
    """The source rows for ``spec``; refuse an empty file or rows of another metric or split."""
    from rgt.deliver.source_data import read_source_data  # lazy (--help): loads pandas

    rows = read_source_data(source, spec.kind)
    if not rows:
        raise DeliveryError(f"{source}: no rows", fix="regenerate it with `rgt source-data`")
    if spec.kind == "curve":
        return rows
    foreign = {(row["metric"], row["split"]) for row in rows} - {(spec.metric, spec.split)}
    if foreign:
        raise DeliveryError(
            f"{source}: rows for {sorted(foreign)}, but figure {spec.fig_id!r} shows "
            f"{spec.metric}/{spec.split}",
            fix=f"regenerate it with `rgt source-data --fig {spec.fig_id}`",
        )
    return rows


def build_figure(
    spec: FigureSpec,
    source: str | Path,
    verify_path: str | Path,
    aggregate_path: str | Path,
    out_dir: str | Path,
) -> dict:
    """Render ``spec`` from ``source`` into ``out_dir``, run the pixel gate, write provenance."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.deliver.provenance import build_provenance

    rows = load_figure_rows(source, spec)
    verify = read_document(verify_path, VERIFY_SCHEMA, "rgt verify")
    differences = [c for c in verify.get("comparisons") or [] if spec.kind == "bar"
                   and (c.get("metric"), c.get("split")) == (spec.metric, spec.split)]
    outputs, gate, messages = render_and_gate(rows, spec, Path(out_dir), differences)
    parts = {
        "inputs": [file_record(source), aggregate_record(aggregate_path), file_record(verify_path)],
        "outputs": outputs,
        # argv[0] is a machine-specific path (…/rgt/__main__.py): record the verb as typed.
        "command": ["rgt", *sys.argv[1:]],
        "findings": verify.get("findings") or [],
        "pixel_gate": gate,
        "source_matches_aggregate": source_matches_aggregate(rows, aggregate_path, spec),
        "render_messages": messages,
        "run_identities": _run_identities(aggregate_path),
        "kind": spec.kind,
    }
    provenance = build_provenance(spec.fig_id, rows, parts)
    write_json(Path(out_dir) / "provenance.json", provenance)
    return provenance


def render_and_gate(rows: list[dict], spec: FigureSpec, out_dir: Path,
                    differences: list[dict] = ()) -> tuple:
    """Write figure.png and figure.pdf, re-open the PNG; (output records, gate, render messages)."""
    # lazy (--help imports every verb): loads matplotlib, numpy, scipy
    from rgt.deliver.curves import render_curve
    from rgt.deliver.figures import render_figure
    from rgt.deliver.pixel_gate import run_pixel_gate

    rendered = (render_curve(rows, spec) if spec.kind == "curve" else
                render_figure(rows, spec, differences))
    png, pdf = out_dir / "figure.png", out_dir / "figure.pdf"
    write_bytes(png, rendered.png)
    write_bytes(pdf, rendered.pdf)
    gate = run_pixel_gate(png, rendered.facts)
    return [file_record(png), file_record(pdf)], gate, rendered.facts["render_messages"]


def aggregate_record(path: str | Path) -> dict:
    """The aggregate's ``{path, sha256}``; sha256 is null when the file is absent."""
    return (
        file_record(path)
        if Path(path).is_file()
        else {"path": Path(path).as_posix(), "sha256": None}
    )


def source_matches_aggregate(
    rows: list[dict], aggregate_path: str | Path, spec: FigureSpec
) -> bool | None:
    """Whether the source rows are exactly what the aggregate gives now; null without one."""
    from rgt.deliver.source_data import figure_rows  # lazy (--help): loads pandas

    if not Path(aggregate_path).is_file():
        return None
    aggregate = read_document(aggregate_path, AGGREGATE_SCHEMA, "rgt aggregate")
    try:
        return figure_rows(aggregate, spec) == rows
    except DeliveryError:  # an aggregate without the curve's scalars: it does not match
        return False


def _run_identities(aggregate_path: str | Path) -> dict:
    if not Path(aggregate_path).is_file():
        return {}
    return read_document(aggregate_path, AGGREGATE_SCHEMA, "rgt aggregate").get("runs") or {}


def report_gate(out_dir: Path, gate: dict) -> None:
    """Print the gate outcome; every failed check on its own line (disclosed, not blocking)."""
    failed = [item for item in gate["checks"] if not item["ok"]]
    if not failed:
        print(f"{out_dir}: pixel gate passed ({len(gate['checks'])} checks)", file=sys.stderr)
        return
    print(
        f"{out_dir}: pixel gate FAILED {len(failed)} check(s) (recorded in provenance.json):",
        file=sys.stderr,
    )
    for item in failed:
        print(f"  {item['name']}: {item['detail']}", file=sys.stderr)
