"""The reconcile corpus's claims (tests/data/reconcile) and a one-call check of a snippet."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import yaml

from rgt.evidence.reconcile import reconcile
from rgt.evidence.userclaims import apply_user_claims, load_user_claims

CORPUS = Path(__file__).parent / "data" / "reconcile"
EVIDENCE = CORPUS / "EVIDENCE.json"
CLAIMS = CORPUS / "claims.yaml"
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@cache
def corpus_claims() -> tuple[list[dict], dict]:
    """The corpus project's claims (its claims file applied) and its ``names:``."""
    user = load_user_claims(CLAIMS)
    claims = apply_user_claims(json.loads(EVIDENCE.read_text())["claims"], user, str(CLAIMS))
    return claims, user.get("names") or {}


def check(tmp_path: Path, text: str, suffix: str = ".md", names: dict | None = None) -> dict:
    """The reconcile report of ``text`` written as one document with ``suffix``."""
    claims, corpus_names = corpus_claims()
    path = tmp_path / f"doc{suffix}"
    path.write_text(text, encoding="utf-8")
    return reconcile(claims, [path], corpus_names if names is None else names)


def drift(report: dict) -> set[tuple[str, str]]:
    """``(claim id without the experiment's prefix and split, found)`` of every drift."""
    return {(short(item["claim"]), item["found"]) for item in report["drift"]}


def matched(report: dict) -> set[tuple[str, str]]:
    """``(short claim id, found)`` of every matched number."""
    return {(short(item["claim"]), item["found"]) for item in report["matched"]}


def short(claim: str) -> str:
    """``cifar10_aug/mixup/accuracy/test`` → ``c10/mixup/accuracy``."""
    exp, variant, metric, _ = claim.split("/")
    return f"{'c100' if exp.startswith('cifar100') else 'c10'}/{variant}/{metric}"


def run_corpus(copy: str) -> dict:
    """The reconcile report of one copy of the corpus (``clean`` or ``drifted``)."""
    claims, names = corpus_claims()
    root = CORPUS / copy
    documents = sorted(path for path in root.rglob("*") if path.is_file())
    return reconcile(claims, documents, names, str(CLAIMS))


def planted() -> list[dict]:
    """The answer key: every drift planted in the drifted copy, with its class."""
    return yaml.safe_load((CORPUS / "expected.yaml").read_text())["drifts"]


def _relative(item: dict, copy: str) -> tuple:
    file = Path(item["file"]).relative_to(CORPUS / copy).as_posix()
    return file, item["line"], item["claim"], item["found"]


def places(copy: str) -> int:
    """Every number written in a copy of the corpus (each a place a careless reader flags)."""
    return sum(len(NUMBER.findall(path.read_text(encoding="utf-8")))
               for path in (CORPUS / copy).rglob("*") if path.is_file())


def score_corpus() -> dict:
    """Recall on the planted drifts and false reports on both copies, with what was missed."""
    key = {(k["file"], k["line"], k["claim"], k["found"]): k["class"] for k in planted()}
    drifted, clean = run_corpus("drifted"), run_corpus("clean")
    found = {_relative(item, "drifted") for item in drifted["drift"]}
    false_drifted = sorted(found - set(key)) + [("unmapped", u["file"], u["line"])
                                                 for u in drifted["unmapped"]]
    false_clean = [("drift", *_relative(d, "clean")) for d in clean["drift"]] + [
        ("unmapped", u["file"], u["line"]) for u in clean["unmapped"]]
    classes: dict[str, list[int]] = {}
    for place, name in key.items():
        classes.setdefault(name, [0, 0])[1] += 1
        classes[name][0] += place in found
    return {"planted": len(key), "found": len(found & set(key)),
            "recall": len(found & set(key)) / len(key), "missed": sorted(set(key) - found),
            "false_reports_drifted": false_drifted, "false_reports_clean": false_clean,
            "numbers_clean": places("clean"), "matched_clean": len(clean["matched"]),
            "numbers_not_drifted": places("drifted") - len(key), "classes": classes,
            "documents": len(clean["files"]), "clean_exit": 0 if clean["ok"] else 1}
