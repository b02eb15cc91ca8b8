"""Loads the HIL plugin for every test run (its --port option must be known at start-up)."""

pytest_plugins = ["hil_tests.plugin"]
