"""A pool of rented hosts run as one cluster: placement by slot, leases, moving lost jobs."""
