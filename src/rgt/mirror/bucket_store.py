"""Checkpoints in a bucket: resumable, hash-verified uploads and downloads, the run's
``MIRROR.json`` there, and pruning to the newest ``keep``.

An upload reads the checkpoint once, hashing it as it goes: a file whose sha256 is not its
marker's is never completed (it changed or rotted since its save). Every request carries the
part's Content-MD5, which S3 checks on arrival, and the ETag the bucket answers must be that MD5
(unless the bucket encrypts with KMS, where S3 alone checks it). A file over ``PART_BYTES``
goes in parts; its upload id is kept beside the run (``<root>/mirror/uploads/``) so a restarted
mirror sends only the parts the bucket lacks. A download streams into ``<file>.part`` (resumed
with a Range request), is hashed as it arrives and checked against the record before it is
renamed into place.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from rgt.base.files import fsync_dir, read_json, write_json
from rgt.mirror.bucket import BucketError, BucketTarget, client, explain
from rgt.mirror.record import FILE_NAME, MirrorRecord, record_from
from rgt.remote.streams import sha256_prefix

PART_BYTES = 8 << 20  # S3 parts are at least 5 MiB (but the last)
CHUNK = 1 << 20
KMS = ("aws:kms", "aws:kms:dsse")


@dataclass(frozen=True)
class Sent:
    """What an upload sent (parts the bucket already held are not counted) and how long."""

    bytes_sent: int
    seconds: float


def md5_of(data: bytes) -> tuple[str, str]:
    """(hex, base64) MD5 of ``data``: the ETag to expect and the Content-MD5 to send."""
    digest = hashlib.md5(data, usedforsecurity=False).digest()
    return digest.hex(), base64.b64encode(digest).decode()


class BucketStore:
    """The runs' mirrors in one bucket target."""

    def __init__(self, target: BucketTarget, uploads: Path | None = None, s3=None):
        self.target = target
        self.uploads = Path(uploads) if uploads else None
        self.s3 = s3 or client(target)

    def _call(self, doing: str, method: str, **kwargs):
        try:
            return getattr(self.s3, method)(Bucket=self.target.bucket, **kwargs)
        except Exception as error:  # noqa: BLE001 - every botocore failure is explained
            raise explain(error, self.target, doing) from None

    def check(self) -> None:
        """Reach the bucket with the credentials in force (a clear ``BucketError`` if not)."""
        self._call(f"checking {self.target.url}", "head_bucket")

    def record(self, run_id: str) -> MirrorRecord | None:
        """The run's ``MIRROR.json`` in the bucket (None when it has none)."""
        body = self.get_json(self.target.key(run_id, FILE_NAME))
        return record_from(body)

    def get_json(self, key: str) -> dict | None:
        """A small JSON object of the bucket (None when absent)."""
        try:
            reply = self.s3.get_object(Bucket=self.target.bucket, Key=key)
        except Exception as error:  # noqa: BLE001 - explained below
            if getattr(error, "response", {}).get("Error", {}).get("Code") in ("NoSuchKey",
                                                                                 "404"):
                return None
            raise explain(error, self.target, f"reading {key}") from None
        try:
            return json.loads(reply["Body"].read())
        except ValueError:
            return None

    def put_json(self, key: str, body: dict) -> None:
        """Write a small JSON object (MD5-checked)."""
        data = (json.dumps(body, indent=1, sort_keys=True) + "\n").encode()
        self._put(key, data, f"writing {key}")

    def _put(self, key: str, data: bytes, doing: str, metadata: dict | None = None) -> None:
        md5_hex, md5_b64 = md5_of(data)
        reply = self._call(doing, "put_object", Key=key, Body=data, ContentMD5=md5_b64,
                           Metadata=metadata or {})
        _check_etag(reply, md5_hex, key)

    def upload(self, run_id: str, path: Path, sha256: str) -> Sent:
        """Upload the checkpoint at ``path`` as the run's ``path.name``, refusing to complete it
        unless its bytes hash to ``sha256`` (its marker's)."""
        started, key = time.monotonic(), self.target.key(run_id, path.name)
        if path.stat().st_size <= PART_BYTES:
            data = path.read_bytes()
            _check_hash(hashlib.sha256(data).hexdigest(), sha256, path)
            self._put(key, data, f"uploading {path.name}", {"sha256": sha256})
            return Sent(len(data), time.monotonic() - started)
        sent = self._multipart(key, path, sha256)
        return Sent(sent, time.monotonic() - started)

    def _multipart(self, key: str, path: Path, sha256: str) -> int:
        upload_id, held = self._resume(key, sha256)
        digest, parts, sent = hashlib.sha256(), [], 0
        with open(path, "rb") as handle:
            for number in range(1, -(-path.stat().st_size // PART_BYTES) + 1):
                data = handle.read(PART_BYTES)
                digest.update(data)
                md5_hex, md5_b64 = md5_of(data)
                etag = held.get(number)
                if etag is None or etag.strip('"') != md5_hex:
                    reply = self._call(f"uploading part {number} of {path.name}", "upload_part",
                                       Key=key, UploadId=upload_id, PartNumber=number,
                                       Body=data, ContentMD5=md5_b64)
                    _check_etag(reply, md5_hex, f"{key} part {number}")
                    etag, sent = reply["ETag"], sent + len(data)
                parts.append({"ETag": etag, "PartNumber": number})
        if digest.hexdigest() != sha256:
            self._call("abandoning a changed upload", "abort_multipart_upload", Key=key,
                       UploadId=upload_id)
            self._forget(key)
            _check_hash(digest.hexdigest(), sha256, path)
        self._call(f"completing {path.name}", "complete_multipart_upload", Key=key,
                   UploadId=upload_id, MultipartUpload={"Parts": parts})
        self._forget(key)
        return sent

    def _resume(self, key: str, sha256: str) -> tuple[str, dict[int, str]]:
        """The upload of ``key`` left by an earlier attempt (its id and the parts the bucket
        holds, by number: their ETags), or a new one."""
        state = read_json(self._state(key)) if self.uploads else None
        if isinstance(state, dict) and state.get("sha256") == sha256:
            try:
                listed = self.s3.list_parts(Bucket=self.target.bucket, Key=key,
                                            UploadId=state["upload_id"])
            except Exception:  # noqa: BLE001 - gone (completed, aborted, expired): start anew
                listed = None
            if listed is not None:
                return state["upload_id"], {part["PartNumber"]: part["ETag"]
                                            for part in listed.get("Parts", [])}
        reply = self._call(f"starting the upload of {key}", "create_multipart_upload", Key=key,
                           Metadata={"sha256": sha256})
        if self.uploads:
            write_json(self._state(key), {"key": key, "upload_id": reply["UploadId"],
                                          "sha256": sha256})
        return reply["UploadId"], {}

    def _state(self, key: str) -> Path:
        return self.uploads / (key.replace("/", "__") + ".json")

    def _forget(self, key: str) -> None:
        if self.uploads:
            self._state(key).unlink(missing_ok=True)

    def download(self, run_id: str, record: MirrorRecord, local_dir: Path) -> None:
        """The record's checkpoint, then its marker, then the record, into ``local_dir``: each
        checkpoint byte hashed as it arrives and checked against the record."""
        local_dir = Path(local_dir)
        local_dir.mkdir(parents=True, exist_ok=True)
        self._fetch(self.target.key(run_id, record.file), local_dir / record.file,
                    record.bytes, record.sha256)
        marker_name = record.file.removesuffix(".pt") + ".json"
        marker = self.get_json(self.target.key(run_id, marker_name))
        if not marker or (marker.get("step"), marker.get("sha256")) != (record.step,
                                                                          record.sha256):
            raise BucketError(f"{self.target.url}/{run_id}/{marker_name} does not describe "
                              f"{record.file}", "the next host-side mirror rewrites it; the "
                              "local mirror is unchanged")
        write_json(local_dir / marker_name, marker)
        record.write(local_dir)

    def _fetch(self, key: str, target: Path, size: int, sha256: str) -> None:
        part = target.with_name(target.name + ".part")
        offset = part.stat().st_size if part.is_file() and part.stat().st_size <= size else 0
        digest = sha256_prefix(part, offset)
        ranged = {"Range": f"bytes={offset}-"} if offset else {}
        if offset < size:
            reply = self._call(f"downloading {key}", "get_object", Key=key, **ranged)
            with open(part, "ab" if offset else "wb") as out:
                for chunk in iter(lambda: reply["Body"].read(CHUNK), b""):
                    out.write(chunk)
                    digest.update(chunk)
                out.flush()
                os.fsync(out.fileno())
        if digest.hexdigest() != sha256:
            part.replace(target.with_name(target.name + ".bad"))
            raise BucketError(f"{key} from {self.target.where()} does not have the recorded "
                              f"sha256 (kept as {target.name}.bad)",
                              "the bucket copy is damaged; resume from the other mirror")
        os.replace(part, target)
        fsync_dir(target.parent)

    def prune(self, run_id: str, keep: int) -> None:
        """Delete the run's checkpoints older than the newest ``keep`` (marker first)."""
        prefix = self.target.key(run_id) + "/"
        reply = self._call("listing the mirror", "list_objects_v2", Prefix=prefix)
        names = [item["Key"][len(prefix):] for item in reply.get("Contents", [])]
        steps = sorted((name for name in names if name.startswith("step-")
                        and name.endswith(".json")), reverse=True)
        for marker in steps[keep:]:
            for name in (marker, marker.removesuffix(".json") + ".pt"):
                self._call(f"pruning {name}", "delete_object", Key=prefix + name)


def _check_etag(reply: dict, md5_hex: str, what: str) -> None:
    """The bucket stored the bytes sent (its ETag is their MD5, unless KMS hides it)."""
    if reply.get("ServerSideEncryption") in KMS or reply.get("SSECustomerAlgorithm"):
        return  # the ETag is not an MD5 there; S3 checked the Content-MD5 on arrival
    if reply.get("ETag", "").strip('"') != md5_hex:
        raise BucketError(f"the bucket stored other bytes than sent for {what} (ETag "
                          f"{reply.get('ETag')}, sent MD5 {md5_hex})",
                          "the next mirror sends it again; nothing was marked complete")


def _check_hash(got: str, want: str, path: Path) -> None:
    if got != want:
        raise BucketError(f"{path} has sha256 {got[:12]}…, its marker says {want[:12]}…: it "
                          "changed or rotted since its save, so it is not mirrored",
                          "the next checkpoint is mirrored instead; inspect the host's disk")
