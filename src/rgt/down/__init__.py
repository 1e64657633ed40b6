"""``rgt down``: the teardown gate. A host's meter is stopped only when every run on it is
pulled and verified against the manifest the host builds now, and the user approved the exact
action (``gate`` decides, ``command`` talks and prints). See docs/pull-and-down.md.
"""
