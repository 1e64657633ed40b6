"""The documents ``rgt reconcile`` reads and, per format, their blocks."""

from __future__ import annotations

from pathlib import Path

from rgt.deliver.inputs import DeliveryError
from rgt.evidence.reconcile.blocks import Paragraph, Table
from rgt.evidence.reconcile.brackets import name_cell_parts
from rgt.evidence.reconcile.csvdoc import csv_blocks
from rgt.evidence.reconcile.latex import latex_blocks
from rgt.evidence.reconcile.markdown import markdown_blocks
from rgt.evidence.reconcile.rst import rst_blocks

SUFFIXES = (".md", ".markdown", ".tex", ".txt", ".rst", ".csv", ".tsv")
DEFAULT_DOCS = ("README.md", "paper", "docs")


def find_documents(paths: list[str] | None) -> list[Path]:
    """The files under ``paths`` (default: README.md, paper/, docs/ where they exist).

    A path the user named that does not exist is an error; a default that does not is skipped.
    """
    named = paths is not None
    documents: list[Path] = []
    for name in paths if named else DEFAULT_DOCS:
        path = Path(name)
        if path.is_dir():
            documents += sorted(p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES
                                and p.is_file())
        elif path.is_file():
            documents.append(path)
        elif named:
            raise DeliveryError(f"{name}: no such file or directory",
                                fix="pass existing documents to --docs")
    return documents


def read_text(path: Path) -> str:
    """A document's text; an unreadable or non-UTF-8 file is a user error."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise DeliveryError(f"{path}: unreadable ({reason})",
                            fix="pass UTF-8 text documents to --docs") from error


def document_blocks(path: Path) -> list[Paragraph | Table]:
    """The paragraphs and tables of one document, read by its suffix."""
    text, source, suffix = read_text(path), path.as_posix(), path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return csv_blocks(text, source, "\t" if suffix == ".tsv" else ",")
    if suffix == ".tex":
        return name_cell_parts(latex_blocks(text, source))
    return name_cell_parts(rst_blocks(text) if suffix == ".rst" else markdown_blocks(text))
