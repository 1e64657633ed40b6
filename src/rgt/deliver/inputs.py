"""Reading delivery inputs: JSON documents checked by schema, and file identities."""

from __future__ import annotations

import json
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.base.hashing import sha256_file


class DeliveryError(RgtError):
    """A delivery input is missing, unreadable or of the wrong schema."""


def read_document(path: str | Path, schema: str, made_by: str) -> dict:
    """Load the JSON document at ``path`` and require ``"schema": schema``.

    ``made_by`` names the command that produces the file; it is the fix when the file is absent.
    """
    path = Path(path)
    if not path.is_file():
        raise DeliveryError(f"{path}: no such file", fix=f"create it with `{made_by}`")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DeliveryError(
            f"{path}: not valid JSON ({error})", fix=f"rerun `{made_by}`"
        ) from error
    found = document.get("schema") if isinstance(document, dict) else None
    if found != schema:
        raise DeliveryError(
            f"{path}: schema is {found!r}, expected {schema!r}",
            fix=f"pass a file written by `{made_by}`",
        )
    return document


def file_record(path: str | Path) -> dict:
    """``{"path", "sha256"}`` of a file; the path is kept exactly as given, for reproducibility."""
    return {"path": Path(path).as_posix(), "sha256": sha256_file(path)}
