"""Whether a local process is alive, told from its pid alone (never by name)."""

from __future__ import annotations

import os
from pathlib import Path


def pid_alive(pid: object) -> bool:
    """True for a running process; False for none, a bad pid, or a zombie (an exited process
    its parent has not reaped yet has finished its work and must not count as hung)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: it exists
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True
