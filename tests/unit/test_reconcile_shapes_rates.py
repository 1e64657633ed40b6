"""Shapes of results the real corpus's seventy-third held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a pose estimation model zoo's
`Speed` cells, a number with a rate for its unit (``3.54 iter/s``), beside each row's AP. The
snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim("coco", variant, metric, value, [name, header], unit=unit)
          for variant, name in (("fastpose", "Fast Pose"), ("hrnet", "HRNet"))
          for metric, header, unit, value in (
              ("ap", "AP", "%", {"fastpose": 72.0, "hrnet": 72.5}[variant]),
              ("speed", "Speed", "iter/s", {"fastpose": 3.54, "hrnet": 2.13}[variant]))]
ZOO = ("| Model | Backbone | AP | Speed | Download |\n|---|---|---|---|---|\n"
       "| Fast Pose | ResNet50 | AP1 | SPEED1 | [model](x) |\n"
       "| HRNet | HRNet-W32 | 72.5 | 2.13 iter/s | [model](y) |\n")


@pytest.mark.parametrize("ap, speed, found", [
    ("72.0", "3.54 iter/s", set()), ("72.3", "3.54 iter/s", {("72.3", "coco/fastpose/ap/test")}),
    ("72.0", "3.45 iter/s", {("3.45", "coco/fastpose/speed/test")})],
    ids=["clean", "ap-drifted", "speed-drifted"])
def test_a_number_with_a_rate_for_its_unit_is_a_result(tmp_path, ap, speed, found):
    # before, `3.54 iter/s` read as a name, and its `iter/s` pinned the row to the speed
    # claims: neither the speed nor the AP beside it was checked
    report = run(tmp_path, CLAIMS, ZOO.replace("AP1", ap).replace("SPEED1", speed))
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found
    assert len(report["matched"]) == 4 - len(found)
