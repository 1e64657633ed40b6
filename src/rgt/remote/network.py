"""A rented host's way out: the platform's proxy hook and package mirrors
(``config/platforms/<name>.yaml``: ``proxy_hook``, ``mirrors``), applied to what reaches the
network from the host (installing the pinned packages; the training job's environment)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

HOST_LOCK = "envs/host.txt"  # pinned, hashed (uv pip compile); pushed with the code tree


@dataclass(frozen=True)
class HostNetwork:
    """The proxy hook (a shell line, e.g. ``source /etc/network_turbo``) and the mirror
    variables (e.g. ``PIP_INDEX_URL``, ``HF_ENDPOINT``) of a host's platform."""

    proxy_hook: str | None = None
    mirrors: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, facts: Mapping) -> HostNetwork:
        """From a platform's facts."""
        return cls(facts.get("proxy_hook"), dict(facts.get("mirrors") or {}))

    def wrap(self, command: list[str]) -> list[str]:
        """``command`` run after the proxy hook (whose failure is only a warning: the host may
        not need it) with the mirror variables set."""
        exports = "".join(f"export {name}={shlex.quote(value)}; "
                          for name, value in sorted(self.mirrors.items()))
        hook = f"{self.proxy_hook} || echo 'rgt: proxy hook failed' >&2; " \
            if self.proxy_hook else ""
        return ["bash", "-c", f"{hook}{exports}exec {shlex.join(command)}"]


def pinned_install(python: str, lock: str) -> list[str]:
    """Install exactly the lock's versions (every hash checked, nothing else resolved)."""
    return [python, "-m", "pip", "install", "--disable-pip-version-check", "-q",
            "--require-hashes", "--no-deps", "-r", lock]
