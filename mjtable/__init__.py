"""The `mjtable` command: the composition root above all the parts.

It may import every part; no part imports it.
"""
