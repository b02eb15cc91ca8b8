"""The hardware-in-the-loop suite: a pytest plugin (`plugin.py`, loaded by the root
conftest) and the scenarios it runs against a real table or the simulator (`table_sim`)."""
