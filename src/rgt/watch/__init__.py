"""`rgt watch` and the host-side watchdog: run state computed from facts on each host.

See docs/watch.md.
"""
