"""Plant drifts in the real-document corpus (tests/data/reconcile_real), deterministically.

Each project there holds documents quoted from a public repository (``clean/``), the
``EVIDENCE.json`` written from their numbers and ``sites.yaml``: every number of ``clean/`` that
states a claim, annotated by hand. This script picks half of the lines holding a site
(seeded by the project's name), changes one site per picked line — a value or spread by 1 to 4
units of its last shown digit, a seed count by one or two — and writes ``drifted/`` (the same
documents with those lines changed) and ``expected.yaml`` (the answer key). Sites marked
``known_drift`` are numbers the source itself gets wrong: never planted, listed as drifts to
find in both copies.

    python bench/reconcile_plant.py [--check]     # --check: exit 1 if a copy is not current
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "reconcile_real"
SHARE = 0.5
HEADER = ("# The answer key of drifted/, written by bench/reconcile_plant.py from sites.yaml:\n"
          "# every planted drift (file, line, claim, the number as planted and as it was) and\n"
          "# every number the source itself gets wrong (known, in both copies).\n")


def projects() -> list[Path]:
    """Every project of the corpus, dev part first."""
    return sorted(path.parent for path in CORPUS.glob("*/*/sites.yaml"))


def mutated(text: str, part: str, rng: random.Random) -> str:
    """``text`` changed the way a careless copy changes it."""
    if part == "seeds":
        n = int(text)
        changed = n + rng.choice([-1, 1, 2])
        return str(changed if changed >= 2 else n + 1)
    sign = text[0] if text[0] in "+-\u2212" else ""
    # ``1.05e-5``: the mantissa is what a careless copy changes, the exponent stays
    digits, exponent = re.fullmatch(r"(.*?)([eE][-+]?\d+)?", text[len(sign):]).groups()
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    step = rng.choice([1, 2, 3, 4]) * rng.choice([-1, 1])
    # in decimal, not float: a logged 17.332243199130996 has more digits than a float keeps
    value = Decimal(digits.replace(",", ""))
    units = int(value.scaleb(decimals)) + step
    if units <= 0:
        units = int(value.scaleb(decimals)) + abs(step)
    grouped = "," in digits  # ``1,455.27`` keeps its thousands separators
    written = f"{Decimal(units).scaleb(-decimals):{',' if grouped else ''}.{decimals}f}"
    bare = digits.startswith(".") and written.startswith("0.")  # ``.797`` stays zero-less
    return f"{sign}{written[1:] if bare else written}{exponent or ''}"


def replace_token(line: str, text: str, occurrence: int, new: str) -> str:
    """``line`` with the ``occurrence``-th standalone ``text`` (not inside a longer number)
    replaced by ``new``."""
    # not inside a longer number or a word; after LaTeX's \pm a number starts (``2.1\pm0.6``),
    # and after Markdown's emphasis (``__4.17%__``)
    matches = list(re.finditer(rf"(?:(?<![\w.])|(?<=\\pm)|(?<=(?<!\w)__)|(?<=(?<!\w)_))"
                               rf"{re.escape(text)}(?!\d|\.\d)", line))
    if len(matches) < occurrence:
        raise SystemExit(f"{text!r} occurs {len(matches)} time(s) in {line!r}, not {occurrence}")
    match = matches[occurrence - 1]
    return line[:match.start()] + new + line[match.end():]


def plant(project: Path, out: Path) -> dict:
    """Write ``out/drifted`` from ``project/clean`` and return the answer key."""
    sites = yaml.safe_load((project / "sites.yaml").read_text(encoding="utf-8"))["sites"]
    rng = random.Random(project.relative_to(CORPUS).as_posix())
    plantable = [site for site in sites if not site.get("known_drift")]
    lines = sorted({(site["file"], site["line"]) for site in plantable})
    picked = sorted(rng.sample(lines, max(1, round(SHARE * len(lines)))))
    documents = {path.relative_to(project / "clean").as_posix():
                 path.read_text(encoding="utf-8").split("\n")
                 for path in sorted((project / "clean").rglob("*")) if path.is_file()}
    drifts = []
    for file, line in picked:
        site = rng.choice([s for s in plantable if (s["file"], s["line"]) == (file, line)])
        new = mutated(site["text"], site["part"], rng)
        document = documents[file]
        document[line - 1] = replace_token(document[line - 1], site["text"],
                                           site["occurrence"], new)
        drifts.append({"file": file, "line": line, "claim": site["claim"],
                       "part": site["part"], "planted": new, "was": site["text"]})
    for name, document in documents.items():
        target = out / "drifted" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(document), encoding="utf-8")
    known = [{"file": s["file"], "line": s["line"], "claim": s["claim"], "part": s["part"]}
             for s in sites if s.get("known_drift")]
    return {"drifts": drifts, "known": known}


def write_key(path: Path, key: dict) -> None:
    path.write_text(HEADER + yaml.safe_dump(key, sort_keys=False, allow_unicode=True),
                    encoding="utf-8")


def current(project: Path) -> bool:
    """Whether the committed drifted copy and key are what this script writes now."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        write_key(out / "expected.yaml", plant(project, out))
        fresh = {p.relative_to(out).as_posix(): p.read_bytes()
                 for p in out.rglob("*") if p.is_file()}
    committed = {p.relative_to(project).as_posix(): p.read_bytes()
                 for p in [project / "expected.yaml", *(project / "drifted").rglob("*")]
                 if p.is_file()}
    return fresh == committed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a drifted copy is not current")
    args = parser.parse_args()
    stale = []
    for project in projects():
        if args.check:
            stale += [] if current(project) else [project.relative_to(CORPUS).as_posix()]
            continue
        shutil.rmtree(project / "drifted", ignore_errors=True)
        key = plant(project, project)
        write_key(project / "expected.yaml", key)
        print(f"{project.relative_to(CORPUS)}: {len(key['drifts'])} drifts planted, "
              f"{len(key['known'])} known in the source")
    for name in stale:
        print(f"{name}: drifted/ is not what bench/reconcile_plant.py writes; run it")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
