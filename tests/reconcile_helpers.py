"""The reconcile corpus's claims (tests/data/reconcile) and a one-call check of a snippet."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from rgt.evidence.reconcile import reconcile
from rgt.evidence.userclaims import apply_user_claims, load_user_claims

CORPUS = Path(__file__).parent / "data" / "reconcile"
EVIDENCE = CORPUS / "EVIDENCE.json"
CLAIMS = CORPUS / "claims.yaml"


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
