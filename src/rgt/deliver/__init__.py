"""DELIVER: every delivered number and figure is a deterministic function of run results.

``aggregate`` -> ``evidence/results.json``; ``source_data`` -> ``figures/<fig>/source_data.csv``;
``figures`` renders it and re-opens the image (``pixel_gate``); ``provenance`` records what went
in and what came out. Importing this package imports nothing heavy.
"""
