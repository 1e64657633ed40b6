"""``rgt verify``: audit finished runs and classify every comparison.

Each comparison of a candidate variant with its experiment's baseline is classified as
``effect``, ``noise``, ``underpowered``, ``confounded`` or ``suspect-bug``; integrity findings are
attached to the claims they affect and never block delivery.

Entry points: :func:`rgt.verify.audit.audit_runs` builds the report dict,
:func:`rgt.verify.report.write_report` writes ``report.json``, ``report.md`` and the plots. This
package ``__init__`` imports nothing, so registering the CLI verb stays cheap.
"""
