"""The user's claims file (``evidence/claims.yaml``): the words, never the numbers.

Numbers come from the results; the user writes only each claim's ``statement`` and ``aliases``
(how documents name it) and the tolerance a reproduction may differ by::

    tolerances: {accuracy: 0.0, loss: 1.0e-6}     # per metric, absolute; default 1e-9
    claims:
      digits/dropout/accuracy/test:
        statement: "Dropout reaches a mean test accuracy of {value:.1%}."
        aliases: ["accuracy with dropout", "dropout test accuracy"]
        tolerance: 0.001                          # overrides the metric's
    names:                                        # how documents name ids (rgt reconcile)
      variants: {dropout: ["with dropout"], no_dropout: ["without dropout"]}
      metrics: {accuracy: ["Acc."]}
      others: ["ResNet-18"]                       # systems that are not yours
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import yaml

from rgt.deliver.inputs import DeliveryError

DEFAULT_TOLERANCE = 1e-9
PHRASES = {"type": "array", "items": {"type": "string", "minLength": 1}}
NAMES = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        **{section: {"type": "object", "additionalProperties": PHRASES}
           for section in ("variants", "metrics", "experiments", "splits")},
        "others": PHRASES,
    },
}
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "tolerances": {
            "type": "object",
            "additionalProperties": {"type": "number", "minimum": 0},
        },
        "claims": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "statement": {"type": "string", "minLength": 1},
                    "aliases": {"type": "array", "items": {"type": "string", "minLength": 1}},
                    "tolerance": {"type": "number", "minimum": 0},
                },
            },
        },
        "names": NAMES,
    },
}


def load_user_claims(path: str | Path | None) -> dict:
    """The validated claims file, or an empty one when ``path`` is None."""
    if path is None:
        return {}
    path = Path(path)
    if not path.is_file():
        raise DeliveryError(f"{path}: no such claims file", fix="create it or drop --claims")
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise DeliveryError(f"{path}: not valid YAML ({error})", fix="fix the YAML") from error
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(SCHEMA)
                                             .iter_errors(document))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise DeliveryError(f"{path}: {where}: {error.message}",
                            fix="see the claims file format in rgt/evidence/userclaims.py")
    return document


def apply_user_claims(claims: list[dict], user: dict, source: str = "claims file") -> list[dict]:
    """Claims with the user's statement, aliases and tolerance; an unknown claim id is an error."""
    written = user.get("claims") or {}
    known = {claim["id"] for claim in claims}
    unknown = sorted(set(written) - known)
    if unknown:
        raise DeliveryError(f"{source}: no delivered number has claim id(s) {', '.join(unknown)}",
                            fix=f"use one of: {', '.join(sorted(known))}")
    tolerances = user.get("tolerances") or {}
    return [_apply(claim, written.get(claim["id"], {}), tolerances) for claim in claims]


def _apply(claim: dict, words: dict, tolerances: dict) -> dict:
    tolerance = words.get("tolerance", tolerances.get(claim["metric"], DEFAULT_TOLERANCE))
    applied = {**claim, "tolerance": tolerance}
    if "aliases" in words:
        applied["aliases"] = words["aliases"]
    if "statement" in words:
        applied["statement"] = fill_statement(words["statement"], claim)
    return applied


def fill_statement(template: str, claim: dict) -> str:
    """The statement with ``{value}``, ``{n}``… filled from the claim: no number typed by hand."""
    try:
        return template.format(**claim)
    except (KeyError, IndexError, ValueError, TypeError) as error:
        raise DeliveryError(
            f"claim {claim['id']}: statement {template!r} cannot be filled ({error!r})",
            fix="use fields of the claim, e.g. {value:.3f}, {n}, {variant}; write {{ for a brace",
        ) from error
