"""``rgt reconcile``: every number a document states about a claim must be the claim's.

Reading order, one module each: ``documents`` picks a reader per format (``markdown``,
``latex`` + ``tabular``, ``csvdoc``) that yields ``blocks`` (paragraphs, tables); ``sites``
places each statement (``statistics``: a value with its ± spread, CI and confidence level, or a
seed count; ``numbers``: how a number is written) among the text around it; ``attribute``
decides from the names nearby (``vocabulary``, ``names``) which claims it speaks of; ``check``
compares; ``report`` collects. The rules, with examples, are in docs/reconcile.md.
"""

from rgt.evidence.reconcile.report import public, reconcile, require_claims

__all__ = ["public", "reconcile", "require_claims"]
