"""Snakemake profiles for rented hosts: well-formed, commented, consistent with the platform
facts, and the danger-clock table in profiles/README.md agrees with config/platforms/."""

from __future__ import annotations

import re

import pytest
import yaml

from conftest import ROOT
from rgt.platforms.command import danger_table
from rgt.platforms.facts import known_platforms, load_all, load_platform

PROFILES = ROOT / "profiles"
PLATFORMS = ROOT / "config" / "platforms"
RENTED = known_platforms(PLATFORMS)
SNAKEMAKE_KEYS = {"executor", "jobs", "local-cores", "rerun-triggers", "rerun-incomplete",
                  "show-failed-logs"}
RGT_KEYS = {"rgt-platform", "rgt-detach", "rgt-secrets"}
# A host's own facts: config/hosts.yaml records them (rgt up); a profile never carries them.
HOST_FACTS = {"rgt-python", "rgt-remote-root", "rgt-ssh-config", "rgt-host"}


def profile(name: str) -> dict:
    return yaml.safe_load((PROFILES / name / "config.yaml").read_text())


def test_every_platform_has_a_profile_and_every_profile_a_platform():
    profile_dirs = {path.name for path in PROFILES.iterdir() if path.is_dir()}
    assert set(RENTED) <= profile_dirs
    assert profile_dirs - set(RENTED) <= {"local", "slurm", "kubernetes"}


@pytest.mark.parametrize("name", RENTED)
def test_profile_runs_training_through_the_rgt_executor_on_its_platform(name):
    settings = profile(name)
    assert settings["executor"] == "rgt"
    assert settings["rgt-platform"] == name
    load_platform(settings["rgt-platform"], PLATFORMS)  # names an existing, valid platform file
    assert settings["jobs"] == 1 and settings["local-cores"] == 2
    assert settings["rerun-triggers"] == ["mtime", "input"] and settings["rerun-incomplete"] is True


@pytest.mark.parametrize("name", RENTED)
def test_profile_has_only_known_keys_and_no_host(name):
    keys = set(profile(name))
    assert keys - SNAKEMAKE_KEYS - RGT_KEYS == set()
    assert "rgt-host" not in keys  # changes per rental: passed as --rgt-host ALIAS
    assert "# rgt-host:" in (PROFILES / name / "config.yaml").read_text()


@pytest.mark.parametrize("name", RENTED)
def test_profile_agrees_with_the_platform_facts_and_carries_no_host_fact(name):
    settings, platform = profile(name), load_platform(name, PLATFORMS)
    assert settings["rgt-detach"] == platform["detach"]
    assert not HOST_FACTS & set(settings)
    text = (PROFILES / name / "config.yaml").read_text()
    assert f"rgt up ALIAS --platform {name}" in text  # where those facts are recorded
    if platform["durable_dir"]:
        assert f"{platform['durable_dir']}/rgt/<project>" in text  # the default root it says


@pytest.mark.parametrize("name", RENTED)
def test_profile_secrets_are_names_never_values(name):
    secrets = profile(name)["rgt-secrets"]
    assert secrets == ["HF_TOKEN", "WANDB_API_KEY"]
    assert all(re.fullmatch(r"[A-Z][A-Z0-9_]*", secret) for secret in secrets)


@pytest.mark.parametrize("name", RENTED)
def test_every_profile_key_is_commented(name):
    lines = (PROFILES / name / "config.yaml").read_text().splitlines()
    for index, line in enumerate(lines):
        if line and not line.startswith("#"):
            assert lines[index - 1].startswith("#"), f"profiles/{name}: {line!r} has no comment"


def readme_table(readme: str) -> str:
    match = re.search(r"<!-- danger-clocks:begin[^>]*-->\n(.*?)\n<!-- danger-clocks:end -->",
                      readme, re.S)
    assert match, "profiles/README.md lost its danger-clocks markers"
    return match.group(1)


def test_readme_danger_table_matches_the_platform_files():
    table = readme_table((PROFILES / "README.md").read_text())
    assert table == danger_table(load_all(PLATFORMS)), (
        "profiles/README.md is out of date: paste the output of `rgt platforms --markdown`")


def test_readme_table_check_catches_a_changed_fact():
    platforms = load_all(PLATFORMS)
    platforms["autodl"]["auto_release"]["after_days"] = 14
    table = readme_table((PROFILES / "README.md").read_text())
    assert table != danger_table(platforms)


def test_readme_describes_every_profile_and_the_host_flag():
    readme = (PROFILES / "README.md").read_text()
    for name in RENTED:
        assert f"| `{name}` |" in readme
    assert "--rgt-host" in readme and "~/.config/snakemake" in readme
