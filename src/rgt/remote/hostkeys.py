"""Host keys are pinned: an unknown or changed key is refused, never trusted on first use.

The refusal shows the offered key's SHA256 fingerprint (as ``ssh-keygen -l`` prints it) and the
fix: check it against the provider's console, then add it to known_hosts yourself.
"""

from __future__ import annotations

import paramiko

from rgt.base.errors import RgtError
from rgt.remote.sshconfig import HostSpec


class HostKeyError(RgtError):
    """The host offered a key that known_hosts does not hold, or one that changed: refused."""


class RefuseUnknownHostKey(paramiko.RejectPolicy):
    """paramiko's RejectPolicy, but the refusal shows the offered key and how to trust it."""

    def __init__(self, spec: HostSpec):
        self.spec = spec

    def missing_host_key(self, client, hostname, key) -> None:
        files = ", ".join(self.spec.known_hosts)
        raise HostKeyError(
            f"unknown host key for {hostname} ({self.spec.alias}): it offered {key.get_name()} "
            f"{key.fingerprint}, which no known_hosts file holds ({files}); refused",
            fix=trust_fix(self.spec))


def trust_fix(spec: HostSpec) -> str:
    """How to trust a host's key: verify it out of band, then add it with ssh-keyscan."""
    port = f"-p {spec.port} " if spec.port != 22 else ""
    return (f"verify the fingerprint in the provider's console, then add the key with "
            f"`ssh-keyscan {port}{spec.hostname} >> {_known_hosts_file(spec)}` (never accept a key "
            "you have not checked)")


def changed_key_error(spec: HostSpec, error: paramiko.BadHostKeyException) -> HostKeyError:
    """The refusal of a key that differs from the one known_hosts holds for this host."""
    name = f"[{spec.hostname}]:{spec.port}" if spec.port != 22 else spec.hostname
    return HostKeyError(
        f"host key for {name} ({spec.alias}) CHANGED: it offered {error.key.get_name()} "
        f"{error.key.fingerprint}, known_hosts expects {error.expected_key.fingerprint}; refused "
        "(a re-created instance, or someone in the middle)",
        fix=f"if the provider re-created the instance, remove the old entry with `ssh-keygen -R "
            f"'{name}' -f {_known_hosts_file(spec)}`, then {trust_fix(spec)}")


def _known_hosts_file(spec: HostSpec) -> str:
    return spec.known_hosts[0] if spec.known_hosts else "~/.ssh/known_hosts"
