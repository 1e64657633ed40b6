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


def test_approval_takes_the_verbs_ascii_name_or_the_platforms_own_word():
    from rgt.down.gate import approval_tokens, decide

    assert approval_tokens("gpubox", "关机 (stop)") == ("gpubox:关机", "gpubox:stop")
    assert approval_tokens("box", "terminate") == ("box:terminate",)
    assert approval_tokens("box", "release (停止并释放 / 关机→释放)") == ("box:release",)
    for typed in ("gpubox:stop", "gpubox:关机"):
        assert decide("gpubox", "关机 (stop)", [], ["echo"], typed).allowed
    refused = decide("gpubox", "关机 (stop)", [], ["echo"], "gpubox:shutdown")
    assert "not the exact action 'gpubox:关机' or 'gpubox:stop'" in refused.reasons[0]


def test_an_alias_that_is_in_no_ssh_config_and_does_not_resolve_fails_at_once(tmp_path):
    import time

    from rgt.remote.ssh import RemoteHost, UnknownHost, resolve_host

    config = tmp_path / "ssh_config"
    config.write_text("Host gpubox\n  HostName gpubox.invalid\n  Port 2222\n")
    started = time.monotonic()
    with pytest.raises(UnknownHost) as typo:
        RemoteHost(resolve_host("gpubx", config), retries=3).run(["true"])
    assert time.monotonic() - started < 3  # no retries: a name that does not resolve stays so
    assert f"gpubx is not a Host in {config} (the ssh config read)" in typo.value.message
    assert "--rgt-ssh-config FILE" in typo.value.fix
    with pytest.raises(UnknownHost) as wrong:
        RemoteHost(resolve_host("gpubox", config), retries=3).run(["true"])
    assert f"its HostName gpubox.invalid in {config} does not resolve" in wrong.value.message


def test_the_host_record_is_written_in_place_keeping_the_users_lines(tmp_path):
    from rgt.hosts.register import record_host
    from rgt.hosts.registry import load_hosts

    hosts = tmp_path / "config/hosts.yaml"
    added = record_host(hosts, "gpubox", {"platform": "autodl", "python": "/opt/py",
                                          "remote_root": "/root/autodl-tmp/rgt/p"}, by="rgt up")
    assert [change.describe() for change in added] == [
        "platform: autodl", "python: /opt/py", "remote_root: /root/autodl-tmp/rgt/p"]
    hosts.write_text(hosts.read_text() + "  lab:  # my own line\n    platform: ssh\n"
                     "    price_per_hour: 1.5   # from the invoice\n")
    assert record_host(hosts, "gpubox", {"platform": "autodl", "python": "/opt/py"},
                       by="rgt up") == []  # the record already says it: nothing written
    changed = record_host(hosts, "lab", {"platform": "ssh", "remote_root": "/data/rgt/p",
                                         "ssh_config": "/home/me/lab.conf"}, by="the executor")
    assert [change.describe() for change in changed] == [
        "remote_root: /data/rgt/p", "ssh_config: /home/me/lab.conf"]
    text = hosts.read_text()
    assert "# my own line" in text and "# from the invoice" in text
    lab = load_hosts(hosts)["lab"]
    assert (lab.price_per_hour, lab.remote_root, lab.ssh_config) == (1.5, "/data/rgt/p",
                                                                      "/home/me/lab.conf")
    assert lab.recorded["by"] == "the executor" and lab.recorded["at"].endswith("Z")
    gpubox = load_hosts(hosts)["gpubox"]
    assert gpubox.provenance().startswith("recorded by rgt up, ")


def test_a_flag_that_differs_from_the_record_is_refused_naming_both(tmp_path):
    from rgt.hosts.registry import load_hosts
    from rgt.remote.hostfacts import settle

    hosts = tmp_path / "hosts.yaml"
    hosts.write_text("hosts:\n  gpubox:\n    platform: autodl\n"
                     "    python: /root/miniconda3/bin/python\n"
                     "    remote_root: /root/autodl-tmp/rgt/p\n"
                     "    recorded: {by: rgt up, at: '2026-12-01'}\n"
                     "  lab:\n    platform: ssh\n")  # by hand: no python, no root
    recorded, by_hand = load_hosts(hosts)["gpubox"], load_hosts(hosts)["lab"]
    wanted = {"platform": "autodl", "python": "python3", "remote_root": None,
              "ssh_config": None}
    with pytest.raises(ConfigError) as caught:
        settle("gpubox", recorded, wanted)
    assert ("--rgt-python (the profile or the command line) is python3, but config/hosts.yaml "
            "records python /root/miniconda3/bin/python for gpubox (recorded by rgt up, "
            "2026-12-01)") in caught.value.message
    assert "rgt up gpubox --python python3" in caught.value.fix
    same = settle("gpubox", recorded, {**wanted, "python": None})
    assert same.remote_root == "/root/autodl-tmp/rgt/p"
    fresh = settle("newbox", None, {**wanted, "python": None, "remote_root": "/data/x"})
    assert (fresh.platform, fresh.remote_root) == ("autodl", "/data/x")
    # A key the file leaves to its default is not a recorded fact: the flag fills it.
    filled = settle("lab", by_hand, {**wanted, "platform": "ssh", "remote_root": "/data/lab"})
    assert (filled.python, filled.remote_root) == ("python3", "/data/lab")


def test_a_silent_host_is_reported_at_a_steady_rhythm_and_retried_until_reached(monkeypatch):
    from rgt.hosts import HostEntry
    from rgt.pool import station as station_module
    from rgt.pool.spec import PoolHost
    from rgt.pool.station import MAX_BACKOFF_S, MirrorOptions, Station
    from rgt.remote.jobs import RemoteLayout
    from rgt.remote.runner import RemoteRunner
    from rgt.remote.ssh import ConnectionLost, RemoteHost, resolve_host

    now = [1000.0]
    monkeypatch.setattr(station_module.time, "monotonic", lambda: now[0])
    lines = []
    runner = RemoteRunner(RemoteHost(resolve_host("gpubx")), RemoteLayout("/r"))
    box = Station(PoolHost(HostEntry("gpubx", "ssh"), 1), runner, None,
                  MirrorOptions("off", None, {}), lines.append)
    gaps = []
    for _ in range(8):
        box.mark_unreachable(ConnectionLost("connection refused"))
        assert box.free == 0
        gaps.append(box.next_probe_at - now[0])
        now[0] = box.next_probe_at
        assert box.free == 1  # never reached: a placement tries it again now
    assert "unreachable (connection refused); no job started; retrying in 10 s" in lines[0]
    assert lines[-1].startswith("rgt: gpubx still unreachable for ") and len(lines) == 8
    assert max(gaps) == MAX_BACKOFF_S and gaps[-3:] == [MAX_BACKOFF_S] * 3
    box.reached = True
    box.mark_unreachable(ConnectionLost("refused"))
    now[0] = box.next_probe_at
    assert box.free == 0  # a host that answered before is probed through its jobs


def test_the_controller_reads_and_shows_a_remote_jobs_progress(tmp_path):
    import json
    import subprocess

    from snakemake_executor_plugin_rgt.progress import ProgressReporter, progress_script

    state = tmp_path / "checkpoints" / "r1"
    state.mkdir(parents=True)
    status = {"state": "running", "step": 0, "updated_at": "2026-01-01T00:00:00Z"}
    (state / "status.json").write_text(json.dumps(status, indent=2))
    beat = {"step": 120, "total_steps": 240, "loss": 0.123456,
            "updated_at": "2026-01-01T00:01:00Z"}
    (state / "heartbeat.json").write_text(json.dumps(beat, indent=2))
    script = progress_script(str(tmp_path), ["r1", "r2"])
    reply = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                           check=True, timeout=30).stdout
    lines = []
    reporter = ProgressReporter(lines.append, every=30)
    assert reporter.due("gpubox")
    reporter.show("gpubox", reply)
    assert lines == ["rgt: r1 on gpubox: step 120/240 (50%), loss 0.1235, 2 steps/s, ETA 1m00s"]
    assert not reporter.due("gpubox")  # at most one report per host every 30 s


def test_a_hosts_file_in_json_is_written_again_whole(tmp_path):
    import json

    from rgt.hosts.register import record_host
    from rgt.hosts.registry import load_hosts

    hosts = tmp_path / "hosts.yaml"
    hosts.write_text(json.dumps({"hosts": {"box-0": {"platform": "ssh", "slots": 2}}}))
    record_host(hosts, "box-0", {"platform": "ssh", "python": "/opt/py",
                                 "remote_root": "/data/p"}, by="the executor")
    entry = load_hosts(hosts)["box-0"]
    assert (entry.slots, entry.python, entry.remote_root) == (2, "/opt/py", "/data/p")


def test_hosts_recorded_at_once_from_threads_are_all_kept(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from rgt.hosts.register import record_host
    from rgt.hosts.registry import load_hosts

    hosts = tmp_path / "hosts.yaml"
    aliases = [f"box-{index}" for index in range(16)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(lambda alias: record_host(hosts, alias, {
            "platform": "ssh", "remote_root": f"/data/{alias}"}, by="the executor"), aliases))
    assert sorted(load_hosts(hosts)) == sorted(aliases)
