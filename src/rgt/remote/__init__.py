"""Talking to a remote machine over SSH.

``ssh`` is the project's one SSH wrapper (``RemoteHost``: pinned host keys, quoted arguments,
typed results, connection retries that never re-run a command), helped by ``sshconfig``
(``~/.ssh/config`` aliases), ``hostkeys`` (refusals that show the fingerprint) and ``channel``
(driving one exec channel). ``transfer`` moves files both ways, resumably and verified by
sha256, through ``survey`` (what is there), ``streams`` (one file per command) and ``batches``
(many small files per command). ``parse`` turns what remote commands print into data.
"""
