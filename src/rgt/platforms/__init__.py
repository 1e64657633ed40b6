"""Rented-GPU platforms: their facts as validated data, and the phase-0 host audit.

``facts`` loads the platform files (shipped with rgt, overridden by a project's
``config/platforms/<name>.yaml``: where durable data lives, which verb stops the
meter, what a stop still bills, which clocks run); ``audit`` parses what a host reports about its
disks, memory, CPUs, GPUs and interpreter and judges whether a launch fits; ``command`` is the
``rgt platforms`` verb.
"""
