"""EVIDENCE: ``evidence/EVIDENCE.json`` binds every delivered number to its source and limits."""
