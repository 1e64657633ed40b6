"""The bottom layer: files, JSON, time, hashing, processes and errors, one helper of each.

Nothing here imports another part of ``rgt``; every other area may import from here.
"""
