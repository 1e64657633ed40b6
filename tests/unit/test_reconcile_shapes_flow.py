"""Shapes of results the real corpus's sixty-first held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: MMFlow's model pages, HTML tables
whose body cells are `<th>`, one per line, under a `<thead>` of two rows (`rowspan` and
`colspan`). The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.htmltable import html_table


def _error(exp: str, variant: str, value: float, names: list[str], split: str) -> dict:
    claim = alias_claim(exp, variant, "epe", value, names, unit=None, direction="lower")
    return {**claim, "id": claim["id"].replace("/test", f"/{split}"), "split": split}


ERRORS = [_error(exp, variant, value, [name, training, header],
                 "val" if exp == "chairs" else "train")
          for variant, name, training, exp, header, value in (
              ("flow_c", "FLOW", "Flying Chairs", "chairs", "Flying Chairs", 0.81),
              ("flow_c", "FLOW", "Flying Chairs", "sintel_clean", "clean", 2.24),
              ("flow_ct", "FLOW", "FlyingChairs + FlyingThing3d", "sintel_clean", "clean", 1.41),
              ("flow_m", "FLOW", "Mixed Dataset", "sintel_clean", "clean", 0.63),
              ("glow_m", "GLOW", "Mixed Dataset", "sintel_clean", "clean", 0.71))]
TABLE = ("<table>\n    <thead>\n        <tr>\n            <td rowspan=2>Models</td>\n"
         "            <td rowspan=2>Training datasets</td>\n"
         "            <td rowspan=2>Flying Chairs</td>\n"
         "            <td colspan=1>Sintel(training)</td>\n        </tr>\n        <tr>\n"
         "            <th>clean</th>\n        </tr>\n    </thead>\n    <tbody>\n"
         "        <tr>\n            <th>FLOW</th>\n            <th>Flying Chairs</th>\n"
         "            <th>CHAIRS</th>\n            <th>2.24</th>\n        </tr>\n"
         "        <tr>\n            <th>FLOW</th>\n"
         "            <th>FlyingChairs + FlyingThing3d</th>\n            <th>-</th>\n"
         "            <th>1.41</th>\n        </tr>\n"
         "        <tr>\n            <th>FLOW</th>\n"
         "            <th>Mixed Dataset<sup>[1]</sup></th>\n            <th>-</th>\n"
         "            <th>MIXED</th>\n        </tr>\n    </tbody>\n</table>\n")


@pytest.mark.parametrize("chairs, found", [("0.81", set()), ("0.84", {"0.84"})],
                         ids=["clean", "drifted"])
def test_an_html_table_whose_body_cells_are_th(tmp_path, chairs, found):
    # before, every row was of header cells, so the whole table read as its header
    report = run(tmp_path, ERRORS, TABLE.replace("CHAIRS", chairs).replace("MIXED", "0.63"))
    assert_drifts(report, found, "chairs/flow_c/epe/val", 4)


def test_a_footnote_mark_in_a_sup_is_not_read():
    # before, `<sup>[1]</sup>` read as `[1]`, a citation: a row so marked was another's
    lines = ["<table>", "<tr><th>Data</th><th>EPE</th></tr>",
             "<tr><td>Mixed Dataset<sup>[1]</sup></td><td>0.63</td></tr>",
             "<tr><td>R<sup>2</sup> fit</td><td>0.91</td></tr>", "</table>"]
    assert [row[0].text for row in html_table(lines, 1).rows] == ["Mixed Dataset", "R 2 fit"]


def test_a_table_all_of_header_cells_reads_its_rows_of_numbers_as_the_body():
    lines = ["<table>", "<tr><th>Model</th><th>EPE</th></tr>",
             "<tr><th>FLOW</th><th>0.81</th></tr>", "</table>"]
    table = html_table(lines, 1)
    assert table.header == ["Model", "EPE"]
    assert [[cell.text for cell in row] for row in table.rows] == [["FLOW", "0.81"]]
