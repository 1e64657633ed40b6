"""What a newcomer reads when a rented-GPU step is missing something: each message names the
file it read and the exact command to type next."""

from __future__ import annotations

import pytest

from rgt.base.errors import ConfigError
from rgt.pool.spec import pool_hosts


def test_a_run_without_a_host_lists_the_registered_hosts_and_the_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config/hosts.yaml").write_text(
        "hosts:\n  lab: {platform: ssh}\n  gpubox: {platform: autodl}\n")
    with pytest.raises(ConfigError) as refused:
        pool_hosts(None, None, tmp_path / "config/hosts.yaml", "autodl")
    assert "hosts in config/hosts.yaml: gpubox (autodl), lab (ssh)" in refused.value.message
    assert refused.value.fix.startswith("snakemake --profile autodl --rgt-host gpubox")


def test_a_run_without_a_host_or_a_registry_says_how_to_register_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as refused:
        pool_hosts(None, None, tmp_path / "config/hosts.yaml", "vastai")
    assert "no host is registered in config/hosts.yaml" in refused.value.message
    assert "`rgt up ALIAS --platform vastai`" in refused.value.fix
    assert "snakemake --profile vastai --rgt-host ALIAS" in refused.value.fix
