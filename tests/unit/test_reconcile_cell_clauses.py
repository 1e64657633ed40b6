"""A table cell listing results in clauses apart by ``;`` (the README's benchmark table: each
earlier part's figures with a description of its documents): each number's part of the cell
is its own clause, so the words of one clause (``generalization``, the test split's name) say
nothing of another's numbers. The README's own reconcile check
(``test_the_readme_quotes_the_committed_evidence``) walks the whole table."""

from __future__ import annotations

from rgt.evidence.reconcile.cellparts import segments
from rgt.evidence.reconcile.statistics import find_statements

CELL = ("24 of 56, 2 / 1 (a draft paper on compositional generalization, the baselines' pages); "
        "13 of 35, 32 / 28 (a thesis, a model zoo); 27 of 31 (READMEs)")


def test_each_number_s_part_of_a_cell_of_clauses_is_its_clause():
    statements = find_statements(CELL, integers=True)
    parts = [CELL[start:end] for start, end in segments(CELL, statements)]
    assert [CELL[statement.start:statement.end] for statement in statements][:2] == ["24", "56"]
    assert parts[0] == parts[1] and "generalization" in parts[0]
    assert all("generalization" not in part and "13 of 35" in part for part in parts[4:8])
    assert parts[-1].startswith("27 of 31")
