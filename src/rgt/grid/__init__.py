"""``rgt reconcile-grid``: the expected grid (experiment x variant x seed, from the config)
against what exists and is pull-verified locally and on every host. ``expected`` reads this
machine, ``survey`` talks to the hosts, ``cells`` decides each cell's state and the command that
closes its gap, ``command`` prints. ``rgt down`` consults ``cells`` for the host it stops.
"""
