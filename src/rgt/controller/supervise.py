"""``python -m rgt.controller.supervise EXIT_FILE -- SNAKEMAKE_ARGV...``: the detached wrapper.

Runs inside its own session (``rgt run --detach`` starts it with ``setsid``), with stdout and
stderr on the controller log. It runs Snakemake as its child, passes SIGTERM and SIGINT on to
it, ignores SIGHUP (no terminal is left to hang up), and when Snakemake ends writes
``{"exit_code": N, "finished_at": ...}`` to EXIT_FILE atomically, so ``rgt watch`` can tell a
finished controller from one that was killed.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from datetime import datetime, timezone

from rgt.base.files import write_json


def exit_code(returncode: int) -> int:
    """A shell-style exit code: a death by signal N becomes 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


def supervise(exit_file: str, argv: list[str]) -> int:
    """Run ``argv`` to its end, forwarding stop signals; record and return its exit code."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    print(f"rgt controller: running {' '.join(argv)}", flush=True)
    try:
        child = subprocess.Popen(argv)
    except OSError as error:
        print(f"rgt controller: cannot start snakemake: {error}", flush=True)
        code = 127
    else:
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda signum, _frame: child.send_signal(signum))
        code = exit_code(child.wait())
    write_json(exit_file, {"exit_code": code, "argv": argv,
                           "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
    print(f"rgt controller: snakemake exited with {code}", flush=True)
    return code


def main(args: list[str]) -> int:
    """Parse ``EXIT_FILE -- ARGV...`` and supervise."""
    if len(args) < 3 or args[1] != "--":
        print("usage: python -m rgt.controller.supervise EXIT_FILE -- ARGV...", file=sys.stderr)
        return 2
    return supervise(args[0], args[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
