"""Spending caps in config/hosts.yaml: validated at the boundary with the key, the value and the
fix; a cap needs the price it is counted from."""

from __future__ import annotations

from pathlib import Path

import pytest

from rgt.base.errors import ConfigError
from rgt.hosts.registry import validate_hosts

HOSTS = Path("config/hosts.yaml")


def hosts(**fields) -> dict:
    return {"hosts": {"gpu1": {"platform": "autodl", **fields}}}


def test_caps_and_a_webhook_are_read_with_their_price():
    entry = validate_hosts(hosts(price_per_hour=2.0, max_spend=40, max_spend_per_run=10.5,
                                 alarm_webhook="https://hooks.example/x"), HOSTS)["gpu1"]
    assert (entry.max_spend, entry.max_spend_per_run) == (40, 10.5)
    assert entry.alarm_webhook == "https://hooks.example/x"


def test_a_cap_without_a_price_is_refused_naming_both():
    with pytest.raises(ConfigError, match="sets max_spend but no price_per_hour") as error:
        validate_hosts(hosts(max_spend=40), HOSTS)
    assert "add price_per_hour" in error.value.fix


@pytest.mark.parametrize(("field", "value"), [("max_spend", 0), ("max_spend", -5),
                                              ("max_spend_per_run", "ten"),
                                              ("alarm_webhook", "slack.com/x")])
def test_a_cap_that_is_not_a_positive_number_or_a_webhook_that_is_not_a_url_is_refused(
        field, value):
    with pytest.raises(ConfigError, match=field) as error:
        validate_hosts(hosts(price_per_hour=2.0, **{field: value}), HOSTS)
    assert str(value) in str(error.value)
