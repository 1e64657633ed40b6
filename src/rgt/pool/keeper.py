"""The lease keeper: a thread per host that renews its jobs' leases every quarter lease.

Renewal is kept apart from the status polls so that a slow pull or a silent host elsewhere in
the pool never lets a healthy host's leases lapse. It renews only while the controller counts
the host as answering: once a poll has failed, the host's jobs keep at most their current
lease, which is what lets them move after the grace without running twice.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from rgt.base.errors import RgtError
from rgt.remote.jobs import RemoteLayout, probe_script
from rgt.remote.ssh import RemoteHost

RENEW_TIMEOUT_S = 10
log = logging.getLogger("rgt.pool")


class LeaseKeeper:
    """Renews, every ``seconds / 4``, the leases of the keys ``running()`` returns."""

    def __init__(self, connect: Callable[[], RemoteHost], layout: Callable[[], RemoteLayout],
                 seconds: int, running: Callable[[], list[str]],
                 answering: Callable[[], bool]):
        self.connect, self.layout, self.seconds = connect, layout, seconds
        self.running, self.answering = running, answering
        self._host: RemoteHost | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rgt-leases", daemon=True)
        self._thread.start()

    def renew_now(self) -> bool:
        """Renew once; False when the host did not take it (logged, retried next time)."""
        keys = self.running()
        if not keys or not self.answering():
            return False
        try:
            self._connection().run(probe_script(self.layout(), keys, self.seconds),
                                   timeout=RENEW_TIMEOUT_S)
        except RgtError as error:
            log.info("lease renewal failed (%s); retried in %.0f s", error, self.seconds / 4)
            return False
        return True

    def stop(self) -> None:
        """End the thread and close its connection."""
        self._stop.set()
        self._thread.join(timeout=RENEW_TIMEOUT_S + 5)
        if self._host is not None:
            self._host.close()

    def _run(self) -> None:
        while not self._stop.wait(max(1.0, self.seconds / 4)):
            self.renew_now()

    def _connection(self) -> RemoteHost:
        if self._host is None:
            self._host = self.connect()
        return self._host
