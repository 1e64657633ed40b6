"""A CSV (or TSV) file as one table: the first row is the header, every other row a body row.

A row with more or fewer cells than the header is an error: which column a cell belongs to is
exactly what reconcile needs, and a ragged row makes it a guess.
"""

from __future__ import annotations

import csv
import io

from rgt.deliver.inputs import DeliveryError
from rgt.evidence.reconcile.blocks import Cell, Table


def csv_blocks(text: str, source: str, delimiter: str = ",") -> list[Table]:
    """The table of a CSV document (none when it is empty)."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((reader.line_num, row))
    except csv.Error as error:
        raise DeliveryError(f"{source}:{reader.line_num}: not valid CSV ({error})",
                            fix="quote cells that contain the delimiter or a quote") from error
    if not rows:
        return []
    (_, header), body = rows[0], rows[1:]
    for line, row in body:
        if len(row) != len(header):
            raise DeliveryError(
                f"{source}:{line}: {len(row)} cells, the header has {len(header)}",
                fix="give every row one cell per header column (an empty cell is ``,,``)")
    return [Table([name.strip() for name in header],
                  [[Cell(cell.strip(), line) for cell in row] for line, row in body])]
