"""``rgt reconcile``: every number a document states about a claim must be the claim's.

Reading order, one module each: ``documents`` picks a reader per format (``markdown`` with
``htmltable``, ``latex`` with ``tabular``, ``csvdoc``), each yielding ``blocks``
(paragraphs, tables); ``sites`` (prose) and ``tables`` (``cellparts``: each number's part of
a cell and its name) place each statement — ``statistics``: a value with its ± spread, CI
and confidence level, or a seed count; ``numbers``: how a number is written — among the text
around it; ``others`` leaves other systems' columns and rows alone, and ``exclusions`` the
numbers no claim states (one seed's, a range's end, the paper's); ``facets`` reads the names
there (``vocabulary``, the project's ``names``; ``aliases``: the claims a table's aliases
pin down), ``attribute`` turns them into the claims the statement may be about (``runs``:
which runs a number speaks of; ``prose``: what a prose number's aliases name), ``check``
compares (``reading``: how a difference is stated, ``direction``: the words that say which
way), ``siblings`` resolves the rows no name tells apart, ``statcheck`` recomputes the test
reports, and ``report`` collects. The rules, with examples: docs/reconcile.md.
"""

from rgt.evidence.reconcile.report import public, reconcile, require_claims

__all__ = ["public", "reconcile", "require_claims"]
