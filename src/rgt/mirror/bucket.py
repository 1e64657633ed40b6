"""An S3-compatible bucket the user owns as a mirror target: where it is, and its errors in words.

``s3://BUCKET/PREFIX`` holds one directory per run, as a local mirror does:
``PREFIX/<run-id>/step-N.pt``, its marker ``step-N.json`` (written after it) and ``MIRROR.json``
(written last). The endpoint (``--rgt-host-mirror-endpoint``) names any S3-compatible service
(MinIO, Cloudflare R2, Backblaze B2, a local test server); without one, AWS S3. Credentials come
from the environment (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``),
which the executor fills on the host from its secrets file: never from a command line.

boto3 comes with the ``s3`` extra (``pip install 'remote-gpu-trainer[s3]'``); it is imported
only when a bucket is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rgt.base.errors import ConfigError, RgtError

SCHEME = "s3://"
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
CONNECT_TIMEOUT_S = 10
READ_TIMEOUT_S = 120
EXTRA = "pip install 'remote-gpu-trainer[s3]'"
DEFAULT_REGION = "us-east-1"
CREDENTIALS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
REFUSED = {"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "403",
           "InvalidClientTokenId", "ExpiredToken", "InvalidToken", "Forbidden"}
MISSING = {"NoSuchBucket", "404", "NotFound"}


class BucketError(RgtError):
    """The bucket could not be reached, refused the credentials, or does not exist."""


@dataclass(frozen=True)
class BucketTarget:
    """``s3://bucket/prefix`` at ``endpoint`` (None: AWS S3)."""

    bucket: str
    prefix: str
    endpoint: str | None = None

    @property
    def url(self) -> str:
        return f"{SCHEME}{self.bucket}/{self.prefix}".rstrip("/")

    def where(self) -> str:
        """The URL and, when not AWS, the endpoint (for messages)."""
        return f"{self.url} at {self.endpoint}" if self.endpoint else self.url

    def key(self, run_id: str, name: str = "") -> str:
        """The object key of ``name`` in ``run_id``'s directory (the directory with no name)."""
        return "/".join(part for part in (self.prefix, run_id, name) if part)


def parse_target(url: str, endpoint: str | None = None) -> BucketTarget:
    """``s3://BUCKET[/PREFIX]`` as a target; ``ConfigError`` naming what is wrong."""
    fix = ("give --rgt-host-mirror s3://BUCKET/PREFIX (a bucket you own; the endpoint of an "
           "S3-compatible service in --rgt-host-mirror-endpoint)")
    if not url.startswith(SCHEME):
        raise ConfigError(f"--rgt-host-mirror {url!r} is not an s3:// URL", fix)
    bucket, _, prefix = url[len(SCHEME):].partition("/")
    if not _BUCKET.fullmatch(bucket) or ".." in bucket:
        raise ConfigError(f"--rgt-host-mirror {url!r}: {bucket!r} is not a bucket name (3-63 "
                          "lower-case letters, digits, dots and hyphens)", fix)
    if endpoint is not None and not re.match(r"https?://[^/\s]+", endpoint):
        raise ConfigError(f"--rgt-host-mirror-endpoint {endpoint!r} is not an http(s) URL",
                          "give the service's URL, e.g. https://s3.example.com:9000")
    return BucketTarget(bucket, prefix.strip("/"), endpoint)


def client(target: BucketTarget):
    """A boto3 S3 client for ``target`` with bounded timeouts and retries."""
    try:
        import boto3  # lazy: the s3 extra; a run without a bucket never needs it
        from botocore.config import Config
    except ImportError:
        raise ConfigError(f"the bucket mirror {target.url} needs boto3, which is not installed "
                          "here", f"{EXTRA} (the host gets it with the job)") from None
    config = Config(connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S,
                    retries={"max_attempts": 3, "mode": "standard"})
    # A session of its own: boto3's default one keeps the first credentials it found. A
    # region is needed to sign even where the service has none (MinIO, a local server).
    session = boto3.session.Session()
    return session.client("s3", endpoint_url=target.endpoint, config=config,
                          region_name=session.region_name or DEFAULT_REGION)


def explain(error: Exception, target: BucketTarget, doing: str) -> BucketError:
    """A boto3/botocore failure while ``doing`` something, in words with its fix."""
    from botocore import exceptions  # lazy, as in ``client``

    where = target.where()
    if isinstance(error, exceptions.NoCredentialsError):
        return BucketError(f"no credentials for {where} while {doing}",
                           "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY here and name them "
                           "in rgt-secrets (the host gets them over stdin, mode 600)")
    if isinstance(error, exceptions.EndpointConnectionError | exceptions.ConnectTimeoutError
                  | exceptions.ReadTimeoutError | exceptions.ConnectionClosedError):
        return BucketError(f"cannot reach {where} while {doing}: {error}",
                           "check the endpoint URL (--rgt-host-mirror-endpoint) and that this "
                           "machine and the host can reach it")
    code = str(getattr(error, "response", {}).get("Error", {}).get("Code", ""))
    if code in REFUSED:
        return BucketError(f"{where} refused the credentials while {doing} ({code})",
                           "check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and the token) and "
                           "that they may read and write this bucket")
    if code in MISSING:
        return BucketError(f"the bucket {target.bucket} does not exist at "
                           f"{target.endpoint or 'AWS S3'} ({doing})",
                           f"create it, or fix the URL {target.url}")
    return BucketError(f"{where} failed while {doing}: {error}",
                       "check the bucket and the credentials; the checkpoints on the host and "
                       "the mirror already made are untouched")
