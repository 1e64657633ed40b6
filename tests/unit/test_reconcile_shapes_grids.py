"""Shapes of results the real corpus's fifty-third held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: tensorpack's A3C results, a
pipe table with no header whose every cell is a game's name, linked, with its score in
parentheses (`[Alien](https://…) (2611)`). The snippets follow that shape, with numbers of
their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

GAMES = [alias_claim(f"{game.lower()}_v0", "a3c", "score", value, [game, "A3C", "scores"],
                     unit="") for game, value in (("Alien", 2611), ("Amidar", 1376),
                                                  ("Asterix", 407432))]
GRID = ("This table lists the pretrained models and their __scores__.\n\n| | | |\n| - | - | - |\n"
        "| [Alien](https://example.org/eval_8N)(2611) | [Amidar](https://example.org/eval_Hw) "
        "({cell}) | [Asterix](https://example.org/eval_me)(407432) |\n")


@pytest.mark.parametrize("cell, found", [("1376", set()), ("1379", {"1379"})],
                         ids=["clean", "drifted"])
def test_a_grid_of_names_each_with_its_number_in_parentheses(tmp_path, cell, found):
    # before, every cell of the header-less grid read as a name (none is only a number): no
    # score was checked
    report = run(tmp_path, GAMES, GRID.format(cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"] + report["drift"]) == 3
