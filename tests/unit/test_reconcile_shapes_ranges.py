"""Shapes of results the real corpus's fifty-eighth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a cryo-EM paper's prose range
whose two ends are two settings' results (`from $E_\\text{OR} = 0$ with exact distances to
$E_\\text{OR} \\approx 0.2$ radians ($\\approx 11.5\\degree$) for $\\sigma^2 = 0.8$`), the
upper end given in two units. The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

ERRORS = [alias_claim(exp, "recovery", metric, value, [*names, "recovery error"], unit=unit,
                      direction="lower")
          for exp, metric, value, unit, names in (
              ("exact", "error", 0.0, "rad", ["exact distances"]),
              ("noisy", "error", 0.3, "rad", ["$\\sigma^2 = 0.6$"]),
              ("noisy", "error_deg", 17.2, "deg", ["$\\sigma^2 = 0.6$"]))]
PROSE = ("The recovery error grows with the error in distances: from $E = 0$ with exact "
         "distances to $E \\approx UPPER$ radians ($\\approx 17.2\\degree$) for $\\sigma^2 = "
         "0.6$.\n")


@pytest.mark.parametrize("upper, found", [("0.3", set()), ("0.4", {"0.4"})],
                         ids=["clean", "drifted"])
def test_a_range_s_upper_end_is_not_its_lower_end_s(tmp_path, upper, found):
    # before, the upper end's clause ran back to `from` and read the exact distances'
    # name, and the degrees in brackets had no unit: both were held against the exact
    # distances' zero
    report = run(tmp_path, ERRORS, PROSE.replace("UPPER", upper), "paper.tex")
    assert_drifts(report, found, "noisy/recovery/error/test", 2)  # the exact zero is no statement
