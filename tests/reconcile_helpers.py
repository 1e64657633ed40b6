"""The reconcile corpus's claims (tests/data/reconcile) and a one-call check of a snippet."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import yaml

from rgt.deliver.inputs import DeliveryError
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


def changed_lines(clean_root: Path, drifted_root: Path) -> set[tuple[str, int]]:
    """``(file, line)`` of every line the drifted copy changes; lines added or removed fail."""
    changed = set()
    for clean in clean_root.rglob("*"):
        if clean.is_file():
            name = clean.relative_to(clean_root).as_posix()
            drifted = (drifted_root / name).read_text().splitlines()
            lines = clean.read_text().splitlines()
            # line by line: a diff's alignment may shift among a table's look-alike lines
            assert len(drifted) == len(lines), f"{name}: lines added or removed"
            changed |= {(name, number) for number, (was, now) in
                        enumerate(zip(lines, drifted, strict=True), start=1) if was != now}
    return changed


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


REAL = Path(__file__).parent / "data" / "reconcile_real"


def real_projects(part: str) -> list[Path]:
    """The projects of one part (``dev`` or ``heldout``) of the real-document corpus."""
    return sorted(path.parent for path in (REAL / part).glob("*/EVIDENCE.json"))


def real_report(project: Path, copy: str) -> dict:
    """The reconcile report of one copy of a real project: its EVIDENCE.json, no claims file
    (the evidence's aliases are all the names there are)."""
    claims = json.loads((project / "EVIDENCE.json").read_text())["claims"]
    documents = sorted(path for path in (project / copy).rglob("*") if path.is_file())
    return reconcile(claims, documents, {}, str(project / "EVIDENCE.json"))


def _where(project: Path, copy: str, item: dict) -> tuple[str, str, int]:
    file = Path(item["file"]).relative_to(project / copy).as_posix()
    return project.name, file, item["line"]


def _hit(place: tuple, claim: str, found: set[tuple]) -> bool:
    """Whether a drift was reported at ``place`` for ``claim`` (``*``: for any claim)."""
    return any(f[:3] == place and claim in ("*", f[3]) for f in found)


def score_real(part: str) -> dict:
    """Recall on the planted drifts of one part of the real corpus, the drifts its sources
    already had (found in both copies), false reports on both copies, and how many of the
    annotated claim numbers of the clean copies were checked at all."""
    score = {"projects": [], "planted": 0, "found": 0, "found_exact": 0, "missed": [], "known": 0,
             "known_found": 0, "false_reports_drifted": [], "false_reports_clean": [],
             "sites": 0, "sites_checked": 0, "documents": 0, "refused": []}
    for project in real_projects(part):
        _score_project(project, score)
    score["recall"] = score["found"] / score["planted"] if score["planted"] else 1.0
    score["clean_exit"] = 0 if not any(item[0] == "drift" for item in
                                       score["false_reports_clean"]) else 1
    return score


def _report_or_refusal(project: Path, copy: str, score: dict) -> dict:
    """The copy's report; a copy ``rgt reconcile`` refuses to read (a quote that leaves a
    LaTeX group open) is recorded as refused and counts as finding nothing."""
    try:
        return real_report(project, copy)
    except DeliveryError as error:
        score["refused"].append((project.name, copy, str(error).splitlines()[0]))
        files = [path for path in (project / copy).rglob("*") if path.is_file()]
        return {"drift": [], "unmapped": [], "matched": [], "files": files}


def _score_project(project: Path, score: dict) -> None:
    key = yaml.safe_load((project / "expected.yaml").read_text())
    sites = yaml.safe_load((project / "sites.yaml").read_text())["sites"]
    planted = [(project.name, d["file"], d["line"], d["claim"]) for d in key["drifts"]]
    numbers = {(project.name, d["file"], d["line"], d["claim"]): str(d["planted"])
               for d in key["drifts"]}
    known = [(project.name, k["file"], k["line"], k["claim"]) for k in key["known"]]
    score["projects"].append(project.name)
    for copy in ("drifted", "clean"):
        report = _report_or_refusal(project, copy, score)
        found = {(*_where(project, copy, d), d["claim"]) for d in report["drift"]}
        reported = {(*_where(project, copy, d), d["claim"], d["found"]) for d in report["drift"]}
        expected = planted + known if copy == "drifted" else known
        false = [("drift", *f) for f in sorted(found) if not any(
            f[:3] == e[:3] and e[3] in ("*", f[3]) for e in expected)]
        false += [("unmapped", *_where(project, copy, u)) for u in report["unmapped"]]
        score[f"false_reports_{copy}"] += false
        score["known"] += len(known)
        score["known_found"] += sum(_hit(k[:3], k[3], found) for k in known)
        if copy == "drifted":
            hits = [p for p in planted if _hit(p[:3], p[3], found)]
            score["planted"] += len(planted)
            score["found"] += len(hits)
            score["found_exact"] += sum(any(r[:3] == p[:3] and p[3] in ("*", r[3])
                                            and numbers[p] in r[4] for r in reported)
                                        for p in hits)
            score["missed"] += [p for p in planted if p not in hits]
        else:
            checked = {(*_where(project, copy, m), m["claim"]) for m in report["matched"]}
            score["sites"] += len(sites)
            score["sites_checked"] += sum(_hit((project.name, s["file"], s["line"]), s["claim"],
                                               checked) for s in sites)
            score["documents"] += len(report["files"])


def alias_claim(exp: str, variant: str, metric: str, value: float, aliases: list[str],
                **extra) -> dict:
    """A claim named only by its aliases, in percent (as the real corpus's evidences are)."""
    return {"id": f"{exp}/{variant}/{metric}/test", "metric": metric, "exp_id": exp,
            "variant": variant, "split": "test", "direction": "higher", "value": value,
            "aliases": aliases, "unit": "%", **extra}


def reconcile_text(tmp_path: Path, claims: list[dict], text: str, name: str = "README.md") -> dict:
    """The reconcile report of ``text`` as one document, with no claims file."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return reconcile(claims, [path], {}, "EVIDENCE.json")


def assert_drifts(report: dict, found: set[str], claim: str, numbers: int) -> None:
    """The report holds a drift of ``claim`` for each number of ``found``, no other drift,
    and matches the rest of the ``numbers`` it checks (a shape test's clean and drifted copy)."""
    assert {(item["found"], item["claim"]) for item in report["drift"]} == \
        {(number, claim) for number in found}
    assert len(report["matched"]) == numbers - len(found)


def outcomes(report: dict, status: str = "drift") -> set[tuple[str, int, str]]:
    """``(variant, line, found)`` of every item of ``status``."""
    return {(item["claim"].split("/")[1], item["line"], item["found"])
            for item in report[status]}
