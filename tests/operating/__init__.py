"""Tests of docs/operating.md: every configuration the operator's guide ships, exercised."""
