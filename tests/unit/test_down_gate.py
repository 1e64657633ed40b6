"""The teardown gate's decision: every missing piece of evidence blocks, with its reason and fix;
only full evidence plus the exact approval allows. Local evidence is read from real bundles."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from test_pull_verify import RUN, make_bundle

from rgt.down.gate import (
    RunEvidence,
    approval_token,
    combine,
    decide,
    loss_text,
    parse_survey,
)
from rgt.mirror.record import MirrorRecord
from rgt.pull.closeout import closeout, local_evidence, partial_dir
from rgt.pull.manifest import manifest_sha256

ALIAS, VERB = "gpu1", "terminate"
STOP = ("runpodctl", "remove", "pod", "abc")
GOOD = RunEvidence("aaaa", remote_sha256="1" * 64, local_sha256="1" * 64)


def reasons(runs, stop=STOP, approval=f"{ALIAS}:{VERB}", **kwargs) -> list[str]:
    return decide(ALIAS, VERB, runs, stop, approval, **kwargs).reasons


def test_allowed_only_with_every_run_pulled_a_stop_command_and_the_exact_approval():
    decision = decide(ALIAS, VERB, [GOOD, RunEvidence("bbbb", "2" * 64, None, False, "2" * 64)],
                      STOP, "gpu1:terminate")
    assert decision.allowed and decision.reasons == []
    assert decision.expected_approval == "gpu1:terminate"


def test_a_host_without_runs_needs_only_the_stop_command_and_approval():
    assert decide(ALIAS, VERB, [], STOP, "gpu1:terminate").allowed


@pytest.mark.parametrize(("run", "why"), [
    (RunEvidence("aaaa", remote_sha256="1" * 64), "no verified bundle"),
    (RunEvidence("aaaa", "1" * 64, local_sha256="9" * 64), "manifest changed since the pull"),
    (RunEvidence("aaaa", None, "refusing to pull run aaaa: run/x (symlink)", False, "1" * 64),
     "cannot build its manifest: refusing to pull run aaaa: run/x (symlink)"),
    (RunEvidence("aaaa", "1" * 64, None, False, "1" * 64, "run/model.pt gone since the pull"),
     "no longer holds: run/model.pt gone"),
])
def test_each_missing_piece_of_evidence_blocks_with_its_reason(run, why):
    found = reasons([GOOD, run])
    assert len(found) == 1 and found[0].startswith("run aaaa is not pulled") and why in found[0]
    assert "fix:" in found[0] and "rgt pull aaaa --host gpu1" in found[0]


def test_an_empty_run_directory_has_nothing_to_lose_unless_its_job_runs():
    empty = RunEvidence("cccc", remote_sha256="3" * 64, remote_files=0)
    assert reasons([GOOD, empty]) == []
    assert "still training" in reasons([RunEvidence("cccc", "3" * 64, running=True,
                                                    remote_files=0)])[0]
    assert reasons([RunEvidence("cccc", "3" * 64, remote_files=1)]) != []


def test_no_stop_command_is_refused_with_the_fix():
    found = reasons([GOOD], stop=None)
    assert len(found) == 1 and "no stop_command for gpu1" in found[0]
    assert "add stop_command" in found[0]


@pytest.mark.parametrize("wrong", ["gpu1:stop", "gpu2:terminate", "gpu1:terminate ", "yes", ""])
def test_a_wrong_approval_is_refused_naming_what_was_expected(wrong):
    found = reasons([GOOD], approval=wrong)
    assert len(found) == 1 and repr(wrong) in found[0]
    assert "--approve gpu1:terminate" in found[0]


def test_no_approval_blocks_unless_judging_the_evidence_alone():
    assert any("not approved" in reason for reason in reasons([GOOD], approval=None))
    assert reasons([GOOD], approval=None, require_approval=False) == []
    assert reasons([GOOD], approval="nope", require_approval=False) != []


def test_every_reason_is_listed_at_once():
    found = reasons([RunEvidence("aaaa", "1" * 64), RunEvidence("bbbb", "2" * 64, running=True)],
                    stop=None, approval="wrong")
    assert [reason.split(" ", 2)[:2] for reason in found[:2]] == [["run", "aaaa"], ["run", "bbbb"]]
    assert len(found) == 4


@pytest.mark.parametrize(("verb", "token"), [
    ("terminate", "gpu1:terminate"), ("manual (the provider's delete, by hand)", "gpu1:manual"),
    ("关机 (stop)", "gpu1:关机")])
def test_the_approval_token_is_the_alias_and_the_verbs_first_word(verb, token):
    assert approval_token(ALIAS, verb) == token


def test_parse_survey_accepts_the_builders_reply_and_refuses_anything_else():
    reply = {"schema": "rgt/pull-survey/v1", "root_exists": True,
             "runs": {"aaaa": {"manifest_sha256": "1" * 64, "files": 3, "bytes": 10},
                      "bbbb": {"error": "symlink"}}}
    assert parse_survey(json.dumps(reply)) == {"root_exists": True, "runs": reply["runs"],
                                               "jobs": []}
    assert parse_survey(json.dumps({**reply, "jobs": ["cccc"]}))["jobs"] == ["cccc"]
    for bad in ({"schema": "x"}, {**reply, "runs": []}, {**reply, "runs": {"a": {}}},
                {**reply, "jobs": "cccc"}):
        with pytest.raises(ValueError):
            parse_survey(json.dumps(bad))
    with pytest.raises(ValueError):
        parse_survey("Welcome to the host!\n")


def test_combine_joins_the_survey_the_jobs_and_the_local_bundles():
    runs = combine({"bbbb": {"error": "symlink"}, "aaaa": {"manifest_sha256": "1" * 64}},
                   {"bbbb", "cccc"}, {"aaaa": ("1" * 64, None)})
    assert runs == [RunEvidence("aaaa", "1" * 64, None, False, "1" * 64, None, None),
                    RunEvidence("bbbb", None, "symlink", True, None, None),
                    RunEvidence("cccc", running=True)]
    assert "still running" in runs[2].not_pulled()


def test_local_evidence_reads_a_real_verified_bundle_and_notices_damage(tmp_path):
    export = tmp_path / "export"
    assert local_evidence(export, RUN) == (None, None)
    partial_dir(export, RUN).parent.mkdir(parents=True)
    manifest = json.loads((make_bundle(partial_dir(export, RUN).parent) /
                           "PULL_MANIFEST.json").read_text())
    assert closeout(export, RUN).state == "exported"
    digest = manifest_sha256(manifest)
    assert local_evidence(export, RUN) == (digest, None)
    (export / RUN / "run" / "model.pt").unlink()
    assert local_evidence(export, RUN) == (digest, "run/model.pt gone since the pull")
    decision = decide(ALIAS, VERB, combine({RUN: {"manifest_sha256": digest}}, set(),
                                           {RUN: local_evidence(export, RUN)}), STOP,
                      "gpu1:terminate")
    assert not decision.allowed and "no longer holds" in decision.reasons[0]


NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def stamp(minutes_ago: float) -> str:
    return (NOW - timedelta(minutes=minutes_ago)).isoformat().replace("+00:00", "Z")


def mirror(step: int = 400, step_seconds: float | None = 10.5) -> MirrorRecord:
    return MirrorRecord("aaaa", "gpu1", step, 1000, "step-000000400.pt", 10, "0" * 64,
                        stamp(5), stamp(3), 1.0, 10, 60.0, step, step_seconds)


def test_the_loss_since_the_newest_mirror_is_quantified_in_steps_and_hours():
    text = loss_text(mirror(), 520, now=NOW)
    assert text == ("120 steps (~0.35 h of training) since its newest mirrored checkpoint "
                    "(step 400, mirrored 3 min ago)")
    # no measured step time: the hours come from the mirrored checkpoint's age
    assert loss_text(mirror(step_seconds=None), 520, now=NOW).startswith(
        "120 steps (~0.08 h of training)")
    assert loss_text(mirror(), None, now=NOW).startswith("an unknown number of steps")


def test_with_no_mirror_everything_since_launch_is_lost():
    text = loss_text(None, 520, stamp(90), now=NOW)
    assert text == ("everything since launch: 520 steps (~1.50 h of training); it has no "
                    "mirrored checkpoint")
    assert "everything since launch" in loss_text(None, None, None, now=NOW)
    assert "no mirrored checkpoint" in loss_text(None, None, "not a time", now=NOW)


def test_a_running_run_blocks_with_its_loss_until_the_loss_is_approved():
    risk = loss_text(mirror(), 520, now=NOW)
    running = RunEvidence("aaaa", "1" * 64, running=True, at_risk=risk)
    found = reasons([GOOD, running])
    assert found == [f"run aaaa is still training on gpu1: stopping now loses {risk} (fix: wait "
                     "for it to finish and `rgt pull aaaa --host gpu1`, or pass "
                     "--approve-loss aaaa)"]
    approved = RunEvidence("aaaa", "1" * 64, running=True, at_risk=risk, loss_approved=True)
    assert reasons([GOOD, approved]) == []


def test_approve_loss_lifts_only_the_named_runs_running_or_not_pulled():
    runs = combine({"aaaa": {"manifest_sha256": "1" * 64}, "bbbb": {"manifest_sha256": "2" * 64},
                    "dddd": {"manifest_sha256": "4" * 64}, "eeee": {"manifest_sha256": "5" * 64}},
                   {"aaaa", "bbbb"}, {}, {"aaaa": "10 steps", "bbbb": "20 steps"},
                   approved={"aaaa", "dddd"})
    found = reasons(runs)
    assert [reason.split(" ", 2)[1] for reason in found] == ["bbbb", "eeee"]
    assert "loses 20 steps" in found[0] and "no verified bundle" in found[1]
    assert "--approve-loss eeee" in found[1]


def test_a_host_copy_changed_after_the_pull_names_the_refresh():
    changed = RunEvidence("aaaa", "1" * 64, local_sha256="2" * 64)
    found = reasons([changed])
    assert found == ["run aaaa is not pulled: its manifest changed since the pull (files on the "
                     "host differ) (fix: `rgt pull aaaa --host gpu1 --refresh`: it verifies the "
                     "host's copy and keeps the old bundle aside in quarantine/; to give the run "
                     "up, --approve-loss aaaa)"]


def test_other_reasons_join_the_list():
    found = reasons([GOOD], other_reasons=["run cccc was launched on gpu1 (...)"])
    assert found == ["run cccc was launched on gpu1 (...)"]
    assert not decide(ALIAS, VERB, [GOOD], STOP, "gpu1:terminate",
                      other_reasons=["a launch"]).allowed
