"""Faults planted in real components for tests: a connection that drops mid-transfer."""

from __future__ import annotations

from rgt.remote.channel import ChannelDropped
from rgt.remote.ssh import RemoteHost


class DropAfter(RemoteHost):
    """A RemoteHost whose connection is closed once ``limit`` stream bytes went either way."""

    def __init__(self, spec, limit: int):
        super().__init__(spec, connect_timeout=5, retries=0)
        self.limit, self.moved = limit, 0

    def stream(self, argv, *, sink, source=None, **kwargs):
        def counting_sink(data: bytes) -> None:
            if self.moved >= self.limit:
                # The line is cut: what paramiko had already buffered never arrives, and no
                # exit status either.
                raise ChannelDropped(f"cut after {self.moved} bytes")
            sink(data)
            self._count(len(data))

        def counting_source():
            for chunk in source:
                yield chunk
                self._count(len(chunk))

        return super().stream(argv, sink=counting_sink, **kwargs,
                              source=None if source is None else counting_source())

    def _count(self, size: int) -> None:
        self.moved += size
        if self.moved >= self.limit:
            self.close()
