"""The reconcile report: every number of every document, matched, drifted or unmapped."""

from __future__ import annotations

import os
from pathlib import Path

from rgt.deliver.inputs import DeliveryError
from rgt.evidence.reconcile.aliases import alias_sets
from rgt.evidence.reconcile.attribute import attribute
from rgt.evidence.reconcile.blocks import Paragraph, Table
from rgt.evidence.reconcile.check import Outcome, judge
from rgt.evidence.reconcile.direction import declares_positive_is_better, labels_improvements
from rgt.evidence.reconcile.documents import document_blocks
from rgt.evidence.reconcile.names import project_vocabulary
from rgt.evidence.reconcile.others import own_sites
from rgt.evidence.reconcile.siblings import less_stated, resolve_cells, resolve_rows
from rgt.evidence.reconcile.sites import Site, paragraph_sites
from rgt.evidence.reconcile.statcheck import paragraph_findings
from rgt.evidence.reconcile.vocabulary import SPLITS, Hit, Vocabulary

PUBLIC = {"drift": ("claim", "file", "line", "found", "expected"),
          "matched": ("claim", "file", "line", "found", "expected"),
          "unmapped": ("file", "line", "text")}


def document_outcomes(path: Path, claims: list[dict], vocabulary: Vocabulary,
                      folder: str = "") -> list[tuple[Site, Outcome]]:
    """Every outcome in one document, with its site; ``folder`` (the names its folders give,
    ``ddpg`` for ``ddpg/README.md``) is the outermost heading of each block."""
    found, unnamed = [], []
    blocks = document_blocks(path)
    for block in blocks if folder else []:
        block.scope = f"{folder} / {block.scope}" if block.scope else folder
    for block, oriented in zip(blocks, positive_is_better(blocks), strict=True):
        sites = paragraph_sites(block) if isinstance(block, Paragraph) else own_sites(
            block, claims, vocabulary)
        judged, pending = [], []
        for site in sites:
            attributed = attribute(site, claims, vocabulary)
            if attributed is None:
                continue
            statement, attribution = attributed
            if attribution.unnamed:
                pending.append((site, statement, attribution, oriented))
            else:
                judged.append((site, statement, attribution, oriented,
                               judge(statement, attribution, site.unit, oriented)))
        checked = resolve_cells(judged, claims, vocabulary)
        unnamed += less_stated(pending, checked)
        if isinstance(block, Paragraph):
            checked += paragraph_findings(block, [outcome for _, outcome in checked])
        found += checked
    return found + resolve_rows(unnamed)


def positive_is_better(blocks: list[Paragraph | Table]) -> list[bool]:
    """Per block, whether signed differences in it read positive = better: it, or an earlier
    block of its section, says so (``a positive difference means better``)."""
    flags, declared = [], set()
    for block in blocks:
        text = block.text if isinstance(block, Paragraph) else " ".join([block.caption,
                                                                         *block.header])
        if declares_positive_is_better(text):
            declared.add(block.scope)
        flags.append(block.scope in declared or _improvements_table(block))
    return flags


def _improvements_table(block: Paragraph | Table) -> bool:
    """A table with a row or column of improvements (``Relative improvement, %``): its signs
    read positive = better, its own declaration, not its section's."""
    return isinstance(block, Table) and any(map(labels_improvements, [
        *block.header, *(row[0].text for row in block.rows if row)]))


def _item(site: Site, outcome: Outcome, file: str) -> dict:
    where = {"file": file, "line": site.line_of(outcome.start)}
    if outcome.status == "unmapped":
        return {**where, "text": site.text}
    expected = outcome.expected
    if expected is not None and outcome.claim.get("unit") == "%" and outcome.part != "seeds":
        expected = round(expected * 100, 12)  # back in the evidence's own unit
    return {"claim": outcome.claim["id"], **where, "found": outcome.found,
            "expected": expected, "part": outcome.part, "fix": outcome.fix}


PERCENT_FIELDS = ("value", "difference")


def as_fractions(claim: dict) -> dict:
    """A claim whose evidence is in percent (``"unit": "%"``) with its numbers as fractions,
    like every other share: a document may write either (``16.45``, ``16.45%``, ``0.1645``)."""
    if claim.get("unit") != "%":
        return claim
    scaled = {key: claim[key] / 100 for key in PERCENT_FIELDS
              if isinstance(claim.get(key), (int, float))}
    variance = claim.get("variance") or {}
    spread = variance.get("value")
    if isinstance(spread, (int, float)):
        scaled["variance"] = {**variance, "value": spread / 100}
    elif isinstance(spread, list):
        scaled["variance"] = {**variance, "value": [None if v is None else v / 100
                                                    for v in spread]}
    return {**claim, **scaled}


def canonical_split(claim: dict) -> dict:
    """A claim whose split is written another way (``dev``, ``validation``) with the split
    documents' words name (``val``)."""
    split = next((name for name, words in SPLITS.items() if claim.get("split") in words), None)
    return {**claim, "split": split} if split else claim


def reconcile(claims: list[dict], documents: list[Path], names: dict | None = None,
              source: str = "claims file") -> dict:
    """``{"ok", "drift", "unmapped", "matched", "files"}`` over ``documents``.

    ``names`` is the claims file's ``names:`` section (``source`` names that file in errors).
    Drift and matched items also carry ``part`` (value, spread, low, high, level, seeds) and
    ``fix`` (the evidence's number written the document's way); ``public`` drops them.
    """
    claims = [canonical_split(as_fractions(claim)) for claim in claims]
    vocabulary = project_vocabulary(claims, names or {}, source)
    report: dict = {"drift": [], "unmapped": [], "matched": [],
                    "files": [path.as_posix() for path in documents]}
    folders = named_folders(documents, vocabulary)
    folder_claims = _folders_claims(folders, vocabulary)
    for path in documents:
        others = {folders[other]: named for other, named in folder_claims.items()
                  if other != path}
        for site, outcome in document_outcomes(path, claims, vocabulary, folders[path]):
            if _another_folder_s(outcome, site, folder_claims[path], others, vocabulary):
                continue
            item = _item(site, outcome, path.as_posix())
            if item not in report[outcome.status]:
                report[outcome.status].append(item)
    report["ok"] = not report["drift"]
    return report


def named_folders(documents: list[Path], vocabulary: Vocabulary) -> dict[Path, str]:
    """Each document's folders below those all documents share that the evidence's names
    name (``ddpg`` and ``td3`` for ``ddpg/README.md`` and ``td3/README.md``; not ``paper``)."""
    parents = [path.resolve().parent for path in documents]
    root = Path(os.path.commonpath(parents)) if parents else Path()
    return {path: " / ".join(part for part in parent.relative_to(root).parts
                             if any(_names_a_run(hit) for hit in vocabulary.find(part)))
            for path, parent in zip(documents, parents, strict=True)}


def _names_a_run(hit: Hit) -> bool:
    return bool({"variant", "claims", "ids"} & set(hit.facets))


def _folders_claims(folders: dict[Path, str], vocabulary: Vocabulary) -> dict[Path, set]:
    """The claims each document's folders name that no other document's folders name."""
    named = {path: set().union(*alias_sets(folder, vocabulary))
             for path, folder in folders.items()}
    return {path: claims - set().union(*(other for key, other in named.items()
                                         if folders[key] != folders[path]))
            for path, claims in named.items()}


def _another_folder_s(outcome: Outcome, site: Site, own: set, others: dict[str, set],
                      vocabulary: Vocabulary) -> bool:
    """Whether the outcome's claim is one another document's folder names
    (``QuartzNet/README.md``'s, read in ``Jasper/README.md``), not this one's, and nothing at
    the site names that folder (Jasper's ``Seed #5`` column, the name QuartzNet's README gives
    its best run)."""
    claim = outcome.claim["id"] if outcome.claim is not None else None
    theirs = [folder for folder, named in others.items() if claim in named]
    if not own or claim in own or not theirs:
        return False
    said = set().union(*(vocabulary.phrases_in(level.text) for level in site.levels
                         if level.tier != "scope"))
    return not any(said & vocabulary.phrases_in(folder) for folder in theirs)


def public(report: dict) -> dict:
    """The report in its documented JSON shape."""
    shaped = {key: [{name: item[name] for name in names} for item in report[key]]
              for key, names in PUBLIC.items()}
    return {**report, **shaped}


REQUIRED = ("id", "metric", "exp_id", "variant", "split", "value")


def require_claims(evidence: dict, source: str) -> list[dict]:
    """The evidence's claims; none, or one without the fields reconcile reads, is an error."""
    claims = evidence.get("claims") or []
    if not claims:
        raise DeliveryError(f"{source}: no claims", fix="rebuild it with `rgt evidence`")
    for index, claim in enumerate(claims):
        missing = [key for key in REQUIRED if not isinstance(claim, dict) or key not in claim]
        if missing:
            name = claim.get("id", f"#{index}") if isinstance(claim, dict) else f"#{index}"
            raise DeliveryError(f"{source}: claim {name} has no {', '.join(missing)}",
                                fix="rebuild it with `rgt evidence`")
    return claims
