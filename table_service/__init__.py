"""The table service: the game mirror, its rules engine, persistence and the API."""
