"""Talking to a remote machine over SSH.

``ssh`` holds the project's one SSH wrapper (``RemoteHost``: strict host keys, quoted arguments,
typed results, connection retries that never re-run a command); ``transfer`` moves files both ways,
resumably and verified by sha256; ``parse`` turns the raw text remote commands print into data.
"""
