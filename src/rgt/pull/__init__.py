"""``rgt pull``: evidence that outlives the host.

The host builds ``PULL_MANIFEST.json`` (``manifest``, stdlib-only, run by the host's own
interpreter), the bundle is pulled resumably (``fetch``), verified locally (``bundle``) and
closed out into ``export/<run-id>`` or ``quarantine/`` (``closeout``). See docs/pull-and-down.md.
"""
