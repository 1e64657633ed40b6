"""Your own project: ``rgt init`` in a repository of the user's own.

``script`` reads a training script (its options, what it reports through ``run.finish``, the
files it names); ``job`` turns that into the config's ``job:`` section; ``scaffold`` writes the
project's files without ever replacing one of the user's; ``profiles`` installs the Snakemake
profiles the package ships; ``command`` is the ``rgt init`` verb.
"""
