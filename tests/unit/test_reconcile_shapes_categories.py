"""Shapes of results the real corpus's forty-sixth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a text-to-speech README whose
opening gives two win rates and then the categories they are for, `win rates of **75.7%** and
**55.7%** over "gpt-4o-mini-tts" on the "Emotions" and "Questions" categories, respectively`,
each category an experiment of its own. The snippets follow those shapes, with numbers of
their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

WIN_RATES = [alias_claim(f"eval_{category.lower()}", "higgs_v2", "win_rate", rate,
                         ["Higgs Audio v2", f'"{category}"', "win rates", "gpt-4o-mini-tts"])
             for category, rate in (("Emotions", 74.71), ("Questions", 56.71))]
OPENING = ('On EmergentTTS-Eval, it achieves win rates of **74.7%** and **{second}%** over '
           '"gpt-4o-mini-tts" on the "Emotions" and "Questions" categories, respectively.\n')


@pytest.mark.parametrize("second, found", [("56.7", set()), ("56.9", {"56.9%"})],
                         ids=["clean", "drifted"])
def test_respectively_pairs_rates_with_their_categories(tmp_path, second, found):
    # before, `respectively` paired runs and metrics only: the second rate, nearer no
    # category, was held against the first category's claim, a false drift on both copies
    report = run(tmp_path, WIN_RATES, OPENING.format(second=second))
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"].split("/")[0] for item in report["drift"] + report["matched"]} == {
        "eval_emotions", "eval_questions"}
