"""Numbers as documents write them, and the statements they make (value, ± spread, CI,
confidence level, seed count)."""

from __future__ import annotations

import pytest

from rgt.evidence.reconcile.numbers import matching_scale, parse_number, rewrite, scales
from rgt.evidence.reconcile.statistics import find_statements


@pytest.mark.parametrize(("text", "value", "ok"), [
    ("0.934", 0.93412, True), ("93.4%", 0.93412, True), ("93.40", 0.934, True),
    ("93.40", 0.93412, False), ("0.935", 0.93412, False), ("93.5 %", 0.93412, False),
    ("-0.012", -0.0123, True), ("\u22120.012", -0.0123, True), ("+0.012", -0.0123, False),
    ("11.2M", 11173962, True), ("11.1M", 11173962, False), ("0.94 pp", 0.009424, True),
    ("1,234.5", 1234.5, True), ("95%", 0.9467, True),
    # scientific notation, as LaTeX tables of small errors write it
    ("6.5e-4", 0.00065, True), ("6.6e-4", 0.00065, False), ("1.1e+03", 1100, True),
    ("3.5E-5", 3.5e-5, True),
])
def test_a_number_states_a_value_rounded_to_the_digits_shown(text, value, ok):
    number = parse_number(text)
    assert (matching_scale(number, value, scales(number)) is not None) is ok


def test_a_difference_without_its_sign_is_compared_by_magnitude():
    number = parse_number("0.62")
    assert matching_scale(number, -0.0062, (100.0,), signed=False) == 100.0
    assert matching_scale(number, -0.0062, (100.0,)) is None


@pytest.mark.parametrize(("value", "text", "fix"), [
    (0.961267, "96.31%", "96.13%"), (-0.0062, "+0.0124", "-0.0062"), (0.0094, "0.49 pp", "0.94 pp"),
    (11173962, "12.1M", "11.2M"),
    # a value the document's decimals would round to zero keeps two digits (the evidence's
    # 2.8 where the document writes thousands): not ``0.0k``, which states nothing
    (2.8, "2.8k", "0.0028k"), (0.04, "1.2", "0.040"), (0.00065, "6.6e-4", "6.5e-4"),
])
def test_the_fix_is_the_value_written_the_way_the_document_writes_it(value, text, fix):
    number = parse_number(text)
    scale = 100.0 if number.percent else 1.0 / number.multiplier
    assert rewrite(value, number, scale) == fix


def statements(text: str) -> list[list[tuple[str, str]]]:
    return [[(part.role, part.number.text) for part in s.parts] for s in find_statements(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("reaches 0.9467 ± 0.0057 here", [[("value", "0.9467"), ("spread", "0.0057")]]),
    ("is 93.4 +/- 0.2 %", [[("value", "93.4"), ("spread", "0.2 %")]]),
    ("by −0.0062 (95% CI [−0.0124, −0.0012])", [[("value", "−0.0062"), ("level", "95%"),
                                                 ("low", "−0.0124"), ("high", "−0.0012")]]),
    ("a 95% confidence interval of 0.26 to 0.98", [[("level", "95%"), ("low", "0.26"),
                                                    ("high", "0.98")]]),
    ("+0.94 pp [0.71, 1.18]", [[("value", "+0.94 pp"), ("low", "0.71"), ("high", "1.18")]]),
    ("over three random seeds, 5 runs, seeds: 4", [[("seeds", "three random seeds")],
                                                   [("seeds", "5 runs")], [("seeds", "seeds: 4")]]),
    ("at the 99% level", [[("level", "99%")]]),
    ("ImageNet pre-training, 3-times average/best", [[("seeds", "3-times average")]]),
    ("6.5e-4 \u00b1 3.5e-5", [[("value", "6.5e-4"), ("spread", "3.5e-5")]]),
    ("gains 0.94 percentage points", [[("value", "0.94 pp")]]),
])
def test_statements_group_a_value_with_what_qualifies_it(text, expected):
    assert statements(text) == expected


@pytest.mark.parametrize("text", [
    "Section 4.2, Table 2, Fig. 3.1, Eq. 2.5", "PyTorch 2.1 and python 3.11, v1.2.0",
    "200 epochs, 1.5x, 3.2 GPU-hours, 64 images", "costs $1.20/h", "in 2024, on 14.03.2024",
    "the first three seeds", "1,000 images", "v1e5",
])
def test_numbers_that_name_something_make_no_statement(text):
    assert statements(text) == []


def test_a_quantity_in_a_unit_a_metric_may_be_measured_in_carries_its_unit():
    forms = [statement.form for statement in find_statements(
        "2.5 hours, 15.9 GB, 18.7 ms, 11.5°, 2.5 degrees and 0.2 radians at 21.5 °C")]
    assert forms == [{"unit:h"}, {"unit:gb"}, {"unit:ms"}, {"unit:deg"}, {"unit:deg"},
                     {"unit:rad"}]


@pytest.mark.parametrize(("text", "form"), [
    ("improves accuracy by 0.94", {"difference", "better", "word:improves"}),
    ("lowers ECE by 1.07 pp", {"difference", "down", "word:lowers"}),
    ("a test loss 0.081 higher", {"difference", "up", "word:higher"}),
    ("a difference of −0.0062", {"difference", "signed"}),
    ("from 95.18% to", {"from"}),
    ("reaches 96.13%", set()),
])
def test_the_form_of_a_value_says_whether_it_is_a_difference_and_which_way(text, form):
    statement = find_statements(text + (" 1.0" if text.endswith("to") else ""))[0]
    assert statement.form == form
