"""docs/own-code.md's examples run as they are, and its table counts their glue lines."""

from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT
from script_drills import finish, start

pytestmark = pytest.mark.integration

DOC = ROOT / "docs" / "own-code.md"
EXAMPLE = re.compile(r"<!-- tested: (\w+) -->\n```python\n(.*?)```", re.S)
GLUE_COLUMN = re.compile(r"^\|.*\| (\d+) \|$", re.M)


def examples() -> dict[str, str]:
    """name -> code, in the page's order."""
    return dict(EXAMPLE.findall(DOC.read_text()))


def test_the_table_counts_the_glue_lines_of_each_example():
    glue = [sum("# rgt" in line for line in code.splitlines()) for code in examples().values()]
    assert [int(count) for count in GLUE_COLUMN.findall(DOC.read_text())] == glue


@pytest.mark.parametrize("name", sorted(examples()))
def test_the_example_trains_and_seals_its_run(tmp_path, name):
    (tmp_path / "train.py").write_text(examples()[name])
    code, output = finish(start(tmp_path / "train.py", tmp_path, "doc"))
    assert code == 0, output
    results = json.loads((tmp_path / "runs" / "doc" / "results.json").read_text())
    assert [metric["name"] for metric in results["metrics"]] == ["nll"]
    assert json.loads((tmp_path / "runs" / "doc" / "run.json").read_text())["weights_sha256"]
