"""``rgt doctor``: the training debug catalogue as automatic diagnostics.

Static AST checks of a user's training code (``rgt.doctor.checks``) and a failed run's log
mapped to catalogue entries (``rgt.doctor.logs``); the platform gotchas read off a host live in
``rgt.platforms.gotchas``. Every finding names its catalogue entry (``catalogue.yaml``) and the fix.
"""
