"""Shared test settings (the Hypothesis profiles are in the root conftest.py)."""
