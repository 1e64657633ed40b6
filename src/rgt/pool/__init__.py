"""A pool of rented hosts run as one cluster: placement by slot, leases, moving lost jobs."""

from rgt.base.errors import RgtError


class SlotsTaken(RgtError):
    """Every slot of the host is held by a job alive there: the job waits for one to end.

    Here, light, because the executor catches it at import time of its own module."""
