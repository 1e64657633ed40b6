"""The documents ``rgt reconcile`` reads, as numbered lines of text.

A table states a number under a header, not next to it, so each row of a CSV file or of a
Markdown table is read as ``header cell header cell …``: the alias in the header then sits next
to the number in the row.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from rgt.deliver.inputs import DeliveryError

SUFFIXES = (".md", ".markdown", ".tex", ".txt", ".rst", ".csv")
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


def document_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of a document; table rows carry their header cells."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DeliveryError(f"{path}: unreadable ({error})",
                            fix="pass UTF-8 text documents to --docs") from error
    if path.suffix.lower() == ".csv":
        yield from csv_lines(text)
    else:
        yield from markdown_lines(text)


def paired(header: list[str], cells: list[str]) -> str:
    """A row read with its header: ``h1 c1 h2 c2 …``."""
    return " ; ".join(f"{h.strip()} {c.strip()}" for h, c in zip(header, cells, strict=False))


def csv_lines(text: str) -> Iterator[tuple[int, str]]:
    """Rows of a CSV document, each paired with the header row."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return
    yield 1, " ; ".join(rows[0])
    for number, row in enumerate(rows[1:], start=2):
        yield number, paired(rows[0], row)


def _cells(line: str) -> list[str]:
    return line.strip().strip("|").split("|")


def _is_rule(line: str) -> bool:
    return set(line.strip()) <= set("|-: ") and "-" in line


def markdown_lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines of a text document; a Markdown table row is paired with its header row."""
    header: list[str] | None = None
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        is_row = line.lstrip().startswith("|")
        if not is_row:
            header = None
        elif header is None and number < len(lines) and _is_rule(lines[number]):
            header = _cells(line)
        elif header is not None and not _is_rule(line):
            yield number, paired(header, _cells(line))
            continue
        yield number, line
