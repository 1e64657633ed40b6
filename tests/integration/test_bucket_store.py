"""The bucket mirror target against a real local S3 server (moto): checkpoints go up whole or
not at all and come down hash-verified; an interrupted upload resumes with the missing parts;
an unreachable endpoint, wrong credentials and a missing bucket are refused in words."""

from __future__ import annotations

import hashlib
import json

import pytest
import torch

from rgt.mirror.bucket import BucketError, BucketTarget, parse_target
from rgt.mirror.bucket_store import PART_BYTES, BucketStore
from rgt.mirror.record import MirrorRecord, read_mirror
from rgt.train.checkpoint import CheckpointStore

pytestmark = [pytest.mark.integration]


@pytest.fixture
def store(s3_server, tmp_path, monkeypatch, request):
    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    name = hashlib.sha1(request.node.name.encode()).hexdigest()[:12]
    bucket = s3_server.make_bucket(f"rgt-{name}")
    target = parse_target(f"s3://{bucket}/proj", s3_server.endpoint)
    return BucketStore(target, tmp_path / "uploads")


def checkpoint(directory, step: int, megabytes: float):
    size = int(megabytes * (1 << 20)) // 4
    return CheckpointStore(directory, keep=5).save(step, {"w": torch.randn(size)})


def record(info) -> MirrorRecord:
    return MirrorRecord("run1", "gpu1", info.step, 100, info.path.name, info.bytes, info.sha256,
                        "2030-01-01T00:00:00Z", "2030-01-01T00:00:01Z", 0.1, info.bytes, 5.0,
                        mirrored_by="host")


def test_a_checkpoint_goes_up_whole_and_comes_down_verified(store, tmp_path):
    for megabytes in (0.1, 20):  # one request; three parts
        info = checkpoint(tmp_path / "host", int(megabytes * 10), megabytes)
        sent = store.upload("run1", info.path, info.sha256)
        assert sent.bytes_sent == info.bytes
        store.put_json(store.target.key("run1", info.marker.name),
                       {"step": info.step, "sha256": info.sha256, "file": info.path.name})
        store.put_json(store.target.key("run1", "MIRROR.json"), record(info).__dict__)
        assert store.record("run1") == record(info)
        store.download("run1", record(info), tmp_path / "here")
        assert (tmp_path / "here" / info.path.name).read_bytes() == info.path.read_bytes()
        assert read_mirror(tmp_path / "here") == record(info)
    assert not list((tmp_path / "uploads").iterdir())  # no upload left half-done


def test_an_interrupted_upload_resumes_with_the_parts_the_bucket_lacks(store, tmp_path):
    info = checkpoint(tmp_path / "host", 30, 20)
    real = store.s3.upload_part
    calls = []

    def dies_after_one(**kwargs):
        calls.append(kwargs["PartNumber"])
        if len(calls) > 1:
            raise ConnectionResetError("the host lost its network")
        return real(**kwargs)

    store.s3.upload_part = dies_after_one
    with pytest.raises(BucketError):
        store.upload("run1", info.path, info.sha256)
    store.s3.upload_part = real
    again = store.upload("run1", info.path, info.sha256)
    assert again.bytes_sent == info.bytes - PART_BYTES  # part 1 was not sent twice
    body = store.s3.get_object(Bucket=store.target.bucket, Key="proj/run1/" + info.path.name)
    assert hashlib.sha256(body["Body"].read()).hexdigest() == info.sha256


def test_a_checkpoint_that_changed_since_its_marker_is_never_completed(store, tmp_path):
    info = checkpoint(tmp_path / "host", 40, 0.1)
    data = bytearray(info.path.read_bytes())
    data[100] ^= 1  # a flipped bit since the save
    info.path.write_bytes(bytes(data))
    with pytest.raises(BucketError, match="changed or rotted since its save"):
        store.upload("run1", info.path, info.sha256)
    listed = store.s3.list_objects_v2(Bucket=store.target.bucket, Prefix="proj/run1/")
    assert not listed.get("Contents")


def test_prune_keeps_the_newest_checkpoints_marker_first(store, tmp_path):
    for step in (1, 2, 3):
        info = checkpoint(tmp_path / "host", step, 0.01)
        store.upload("run1", info.path, info.sha256)
        store.put_json(store.target.key("run1", info.marker.name), {"step": step})
    store.prune("run1", keep=2)
    listed = store.s3.list_objects_v2(Bucket=store.target.bucket, Prefix="proj/run1/")
    assert sorted(item["Key"].rsplit("/", 1)[1] for item in listed["Contents"]) == [
        "step-000000002.json", "step-000000002.pt", "step-000000003.json", "step-000000003.pt"]


def test_unreachable_endpoint_wrong_credentials_and_missing_bucket_are_said_plainly(
        s3_server, store, monkeypatch):
    closed = BucketStore(BucketTarget("rgt-any", "p", "http://127.0.0.1:9"))
    with pytest.raises(BucketError, match="cannot reach s3://rgt-any/p at http://127.0.0.1:9"):
        closed.check()
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    wrong = BucketStore(store.target)
    with pytest.raises(BucketError, match="refused the credentials") as refused:
        wrong.check()
    assert "AWS_SECRET_ACCESS_KEY" in refused.value.fix
    assert "not-the-secret" not in str(refused.value)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3_server.secret_key)
    missing = BucketStore(BucketTarget("rgt-no-such-bucket", "p", s3_server.endpoint))
    with pytest.raises(BucketError, match="does not exist"):
        missing.check()


@pytest.mark.parametrize(("url", "named"), [("gs://b/p", "is not an s3:// URL"),
                                            ("s3://B_ad/p", "is not a bucket name"),
                                            ("s3://ab", "is not a bucket name")])
def test_a_target_that_is_not_a_bucket_url_is_refused(url, named):
    from rgt.base.errors import ConfigError

    with pytest.raises(ConfigError, match=named):
        parse_target(url)
    assert parse_target("s3://rgt-mirror/a/b/").key("r", "x") == "a/b/r/x"
    with pytest.raises(ConfigError, match="not an http"):
        parse_target("s3://rgt-mirror", "ftp://x")


def test_the_host_side_mirror_pushes_what_is_newer_and_exits_once_nothing_runs(store, tmp_path):
    from rgt.mirror.host_side import HostMirror, HostMirrorSettings, run_host_mirror

    root = tmp_path / "root"
    info = checkpoint(root / "checkpoints" / "run1", 70, 0.1)
    (root / "jobs" / "run1").mkdir(parents=True)
    (root / "jobs" / "run1" / "exit_code").write_text("0\n")  # ended: one last pass, then exit
    settings = HostMirrorSettings(str(root), store.target, "gpu1", every_s=1)
    assert run_host_mirror(settings) == 0  # never seen running: nothing of its is due
    assert store.record("run1") is None
    mirror = HostMirror(settings, store)
    mirror.seen.add("run1")  # it ran while this mirror watched, and has ended since
    assert mirror.run() == 0
    remote = store.record("run1")
    assert (remote.step, remote.sha256, remote.mirrored_by) == (70, info.sha256, "host")


def test_the_host_side_mirror_says_when_its_bucket_cannot_be_used(tmp_path, monkeypatch):
    from rgt.mirror.host_side import EXIT_BUCKET_UNUSABLE, HostMirrorSettings, run_host_mirror

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    settings = HostMirrorSettings(str(tmp_path), BucketTarget("rgt-any", "p",
                                                              "http://127.0.0.1:9"), "gpu1")
    assert run_host_mirror(settings) == EXIT_BUCKET_UNUSABLE  # the job goes on, unmirrored
    status = json.loads((tmp_path / "mirror" / "status.json").read_text())
    assert "no credentials for s3://rgt-any/p" in status["error"]
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "a")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "b")
    assert run_host_mirror(settings) == EXIT_BUCKET_UNUSABLE
    status = json.loads((tmp_path / "mirror" / "status.json").read_text())
    assert "cannot reach s3://rgt-any/p at http://127.0.0.1:9" in status["error"]
