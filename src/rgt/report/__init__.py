"""The delivery report: every delivered number with its runs, disclosures and status."""
