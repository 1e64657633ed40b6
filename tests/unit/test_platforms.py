"""Platform facts: every shipped file validates, bad files name file/key/value/fix, staleness,
danger clocks, and the ``rgt platforms`` verb."""

from __future__ import annotations

import argparse
import copy
import json
from datetime import date
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from rgt.base.errors import ConfigError, RgtError
from rgt.platforms.command import register
from rgt.platforms.facts import (
    check_all,
    danger_clocks,
    known_platforms,
    load_all,
    load_platform,
    stale_facts,
)

PLATFORMS = ROOT / "config" / "platforms"
SHIPPED = ("autodl", "china", "lambda", "paperspace", "runpod", "ssh", "vastai")


def write_platform(root: Path, data: dict, name: str | None = None) -> Path:
    path = root / f"{name or data['name']}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    return path


def shipped(name: str) -> dict:
    return yaml.safe_load((PLATFORMS / f"{name}.yaml").read_text())


def test_every_shipped_platform_file_validates():
    platforms = load_all(PLATFORMS)
    assert tuple(platforms) == SHIPPED
    assert all(platform["name"] == name for name, platform in platforms.items())


def test_money_facts_carry_a_verified_stamp_on_every_platform():
    for name in SHIPPED:
        platform = load_platform(name, PLATFORMS)
        for fact in ("meter_stop", "auto_release", "preemption"):
            assert platform[fact]["verified"], f"{name}.{fact}"


def _set(data: dict, dotted: str, value) -> dict:
    *parents, leaf = dotted.split(".")
    node = data
    for key in parents:
        node = node[key]
    node[leaf] = value
    return data


BAD = [
    # (dotted key, value, words the message must contain, words the fix must contain)
    ("meter_stop.verbb", "stop", ["meter_stop.verbb", "unknown key 'verbb'"],
     ["rename it to 'verb'", "platform file"]),
    ("colour", "red", ["unknown key 'colour'"], ["remove it"]),
    ("meter_stop.verified", "2026-6", ["meter_stop.verified", "'2026-6'", "YYYY-MM"],
     ["meter_stop.verified", "2026-06"]),
    ("auto_release.verified", "2026-13", ["auto_release.verified", "'2026-13'"], ["YYYY-MM"]),
    ("preemption.verified", date(2026, 6, 1), ["preemption.verified", "datetime.date"],
     ["2026-06"]),
    ("inode_cap", "200K", ["inode_cap", "'200K'", "whole number"], ["whole number"]),
    ("meter_stop.irreversible", "yes", ["meter_stop.irreversible", "'yes'", "true or false"],
     ["true or false"]),
    ("detach", "nohup", ["detach", "'nohup'", "'setsid'", "'tmux'"], ["one of"]),
    ("auto_release.after_days", 0, ["auto_release.after_days", ">= 1"], [">= 1"]),
    ("ephemeral_dirs", ["tmp"], ["ephemeral_dirs.0", "'tmp'", "absolute path"], ["absolute"]),
    ("mirrors", {"hf_endpoint": "x"}, ["'hf_endpoint'"], ["capitals"]),
    ("price_per_hour_hint", {"usd": 1.5}, ["price_per_hour_hint", "'verified' is missing"],
     ["config/platforms/ssh.yaml"]),
]


@pytest.mark.parametrize("dotted, value, message_words, fix_words", BAD,
                         ids=[f"{case[0]}={case[1]!r}" for case in BAD])
def test_bad_platform_file_names_file_key_value_and_fix(
        tmp_path, dotted, value, message_words, fix_words):
    path = write_platform(tmp_path, _set(shipped("runpod"), dotted, value))
    with pytest.raises(ConfigError) as caught:
        load_platform("runpod", tmp_path)
    assert str(path) in caught.value.message
    for word in message_words:
        assert word in caught.value.message
    for word in fix_words:
        assert word in caught.value.fix
    assert "config/config.yaml" not in caught.value.fix  # points at platform files instead


def test_missing_key_is_named(tmp_path):
    data = shipped("vastai")
    del data["meter_stop"]["trap"]
    write_platform(tmp_path, data)
    with pytest.raises(ConfigError, match="meter_stop: required key 'trap' is missing"):
        load_platform("vastai", tmp_path)


def test_name_must_match_the_file(tmp_path):
    write_platform(tmp_path, shipped("vastai"), name="vast")
    with pytest.raises(ConfigError) as caught:
        load_platform("vast", tmp_path)
    assert "'vastai'" in caught.value.message and "name: vast" in caught.value.fix


@pytest.mark.parametrize("name", ["azure", "../platforms/ssh"])
def test_unknown_platform_lists_the_known_ones(name):
    with pytest.raises(ConfigError) as caught:
        load_platform(name, PLATFORMS)
    assert repr(name) in caught.value.message
    assert "autodl, china, lambda, paperspace, runpod, ssh, vastai" in caught.value.message


def test_invalid_yaml_is_a_config_error(tmp_path):
    (tmp_path / "broken.yaml").write_text("name: broken\nmeter_stop: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_platform("broken", tmp_path)


def test_check_all_reports_every_bad_file(tmp_path):
    write_platform(tmp_path, shipped("ssh"))
    write_platform(tmp_path, _set(shipped("lambda"), "detach", "screen"))
    write_platform(tmp_path, _set(shipped("runpod"), "inode_cap", -1))
    problems = check_all(tmp_path)
    assert [Path(p.message.split()[0]).stem for p in problems] == ["lambda", "runpod"]
    assert known_platforms(tmp_path) == ["lambda", "runpod", "ssh"]


# --- staleness -------------------------------------------------------------------------------

def with_stamps(stamp: str, price_stamp: str | None = None) -> dict:
    platform = copy.deepcopy(load_platform("runpod", PLATFORMS))
    for fact in ("meter_stop", "auto_release", "preemption"):
        platform[fact]["verified"] = stamp
    if price_stamp:
        platform["price_per_hour_hint"] = {"usd": 2.0, "verified": price_stamp}
    return platform


def test_fact_exactly_six_months_old_is_not_stale():
    assert stale_facts(with_stamps("2026-06"), date(2026, 12, 31)) == []


def test_fact_seven_months_old_is_stale_and_named_by_dotted_path():
    assert stale_facts(with_stamps("2026-06"), date(2027, 1, 1)) == [
        "meter_stop.verified", "auto_release.verified", "preemption.verified"]


def test_only_the_old_price_stamp_is_stale():
    platform = with_stamps("2026-11", price_stamp="2025-01")
    assert stale_facts(platform, date(2026, 11, 29)) == ["price_per_hour_hint.verified"]
    assert stale_facts(platform, date(2026, 11, 29), months=24) == []


# --- danger clocks ---------------------------------------------------------------------------

def clocks(name: str) -> str:
    return "\n".join(danger_clocks(load_platform(name, PLATFORMS)))


def test_runpod_clocks_say_stop_still_bills_the_volume():
    assert "RunPod stop still bills the volume" in clocks("runpod")
    assert "What a stop still bills on RunPod: stop keeps billing the volume disk" in clocks(
        "runpod")
    assert "'terminate', is irreversible" in clocks("runpod")


def test_vastai_clocks_say_stop_bills_the_disk():
    text = clocks("vastai")
    assert "stop still bills the disk" in text and "'destroy', is irreversible" in text
    assert "auto-releases" not in text  # no documented day count


def test_autodl_clocks_name_the_fifteen_day_release_and_no_irreversible_stop():
    text = clocks("autodl")
    assert "AutoDL auto-releases a stopped instance after 15 days" in text
    assert "irreversible" not in text  # 关机 is reversible


def test_a_stop_that_bills_nothing_adds_no_billing_clock():
    platform = copy.deepcopy(load_platform("autodl", PLATFORMS))
    platform["meter_stop"]["still_bills"] = None
    assert not any("still bills" in clock for clock in danger_clocks(platform))


def test_lambda_and_bare_ssh_clocks():
    assert "no stop" in clocks("lambda") and "OS shutdown keeps billing" in clocks("lambda")
    assert "bills 24/7" in clocks("ssh")


# --- the verb --------------------------------------------------------------------------------

def run_verb(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_platforms_lists_verbs_and_flags_stale_facts(capsys):
    assert run_verb(["platforms", "--root", str(PLATFORMS), "--today", "2026-12-01"]) == 0
    fresh = capsys.readouterr().out
    assert "runpod: RunPod" in fresh and "meter stop: terminate (irreversible)" in fresh
    assert "⚠" not in fresh
    run_verb(["platforms", "--root", str(PLATFORMS), "--today", "2027-01-01"])
    stale = capsys.readouterr().out
    assert stale.count("⚠") == len(SHIPPED) and "config/platforms/vastai.yaml" in stale


def test_platforms_check_passes_on_the_shipped_files(capsys):
    assert run_verb(["platforms", "check", "--root", str(PLATFORMS)]) == 0
    assert f"{len(SHIPPED)} of {len(SHIPPED)} platform files valid" in capsys.readouterr().err


def test_platforms_check_fails_naming_file_key_and_fix(tmp_path, capsys):
    write_platform(tmp_path, _set(shipped("autodl"), "meter_stop.verified", "June 2026"))
    assert run_verb(["platforms", "--root", str(tmp_path), "check"]) == 2
    err = capsys.readouterr().err
    assert "autodl.yaml" in err and "meter_stop.verified" in err and "fix:" in err


def test_platforms_check_on_an_empty_directory_fails(tmp_path, capsys):
    assert run_verb(["platforms", "check", "--root", str(tmp_path)]) == 2
    assert "holds no platform files" in capsys.readouterr().err


def test_checkpoints_are_sized_from_the_largest_smoke_record(tmp_path, tiny_config):
    from rgt.base.files import write_json
    from rgt.config import load_config
    from rgt.plan.paths import smoke_record
    from rgt.plan.runplan import plan_runs
    from rgt.remote.up import planned_checkpoints

    config = load_config(tiny_config)
    plan = plan_runs(config)
    first, second = sorted({spec.smoke_id for spec in plan})
    write_json(tmp_path / smoke_record(first), {"ok": True, "state": {
        "parameters": 10, "parameter_bytes": 40, "state_bytes": 120}})
    budget = planned_checkpoints(config, tmp_path)
    assert budget.checkpoint_bytes == 120 + 40 + (1 << 20) and budget.runs == len(plan)
    measured = planned_checkpoints(config, tmp_path, measure=lambda spec: {
        "parameters": 1, "parameter_bytes": 4000, "state_bytes": 12000})
    assert measured.checkpoint_bytes == 16000 + (1 << 20)
    with pytest.raises(RgtError, match="no variant of the plan has a smoke record"):
        planned_checkpoints(config, tmp_path / "elsewhere")


def test_hosts_reached_at_once_from_a_pools_threads_are_all_remembered(tmp_path):
    """A pool reaches its hosts from a thread each: every host is recorded, none raises."""
    from concurrent.futures import ThreadPoolExecutor

    from rgt.remote.warnings_once import SEEN_FILE, first_use_warnings, remember_host

    hosts = [f"box-{index}" for index in range(24)]
    with ThreadPoolExecutor(max_workers=12) as pool:
        list(pool.map(lambda host: remember_host(tmp_path, host, "ssh"), hosts))
    assert json.loads((tmp_path / SEEN_FILE).read_text()) == dict.fromkeys(hosts, "ssh")
    assert not any(line.startswith("first use") for line in
                   first_use_warnings(tmp_path, "ssh", "box-7"))


# --- facts ship with the package; a project's file overrides one ----------------------------

def test_outside_the_repository_every_shipped_platform_is_listed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # a project of the user's own: no config/platforms/
    assert run_verb(["platforms", "--today", "2026-12-01"]) == 0
    listed = capsys.readouterr().out
    assert all(f"{name}: " in listed for name in SHIPPED), listed
    assert run_verb(["platforms", "check"]) == 0
    assert tuple(load_all()) == SHIPPED and load_platform("ssh")["name"] == "ssh"


def test_a_project_file_overrides_the_shipped_one_of_its_name_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config" / "platforms").mkdir(parents=True)
    write_platform(tmp_path / "config" / "platforms",
                   _set(shipped("ssh"), "display_name", "Our lab server"))
    write_platform(tmp_path / "config" / "platforms", {**shipped("ssh"), "name": "labbox"})
    assert load_platform("ssh")["display_name"] == "Our lab server"
    assert load_platform("autodl") == shipped("autodl")  # still the shipped facts
    assert known_platforms() == sorted([*SHIPPED, "labbox"])


def test_an_unknown_platform_points_at_a_shipped_file_to_start_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_platform("azure")
    assert "autodl, china, lambda, paperspace, runpod, ssh, vastai" in caught.value.message
    start_from = caught.value.fix.rsplit("a copy of ", 1)[1].rstrip(")")
    assert "config/platforms/azure.yaml" in caught.value.fix
    assert Path(start_from).is_file() and Path(start_from).resolve() != \
        (tmp_path / "config" / "platforms" / "ssh.yaml").resolve()
