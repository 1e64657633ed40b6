"""Shapes of results the real corpus's forty-sixth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a text-to-speech README whose
opening gives two win rates and then the categories they are for, `win rates of **75.7%** and
**55.7%** over "gpt-4o-mini-tts" on the "Emotions" and "Questions" categories, respectively`,
each category an experiment of its own; its tokenizer page's table of codecs, each row a link
and a citation mark (`[WavTokenizer (Speech)](…)[7]`), one codec's row naming the speech set
the project's own claims are on. The snippets follow those shapes, with numbers of their
own."""

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


TOKENIZER = [alias_claim("speech_set", "ours", "stft_distance", 1.62,
                         ["Ours", "Speech", "Speech ↓"], direction="lower")]
CODECS = ("| Tokenizer | 💬 | 🎵 | SD | $f_s$ | Speech ↓ | Music ↓ |\n"
          "|---|---|---|---|---|---|---|\n"
          "| [Encodec](https://huggingface.co/facebook/encodec_24khz)[3] | ✓ | ✓ |  | 24 | 1.96 "
          "| 2.52 |\n| [WavTokenizer (Speech)](https://huggingface.co/novateur/large-speech)[7] "
          "| ✓ |  |  | 24 | 1.78 | 2.42 |\n| Ours | ✓ | ✓ | ✓ | 24 | **{ours}** | **1.91** |\n")


@pytest.mark.parametrize("ours, found", [("1.62", set()), ("1.65", {"1.65"})],
                         ids=["clean", "drifted"])
def test_a_cited_row_with_a_name_of_its_own_is_another_system_s(tmp_path, ours, found):
    # before, `(Speech)` in the codec's label made its citation credit a name of ours: the
    # row was read as ours, and its 1.78 held against our 1.62, a false drift on both copies
    report = run(tmp_path, TOKENIZER, CODECS.format(ours=ours))
    assert {item["found"] for item in report["drift"]} == found
    assert [item["line"] for item in report["drift"] + report["matched"]] == [5]
