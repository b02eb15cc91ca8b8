"""What the store refuses: the API maps each to a status code."""

from __future__ import annotations


class StoreError(Exception):
    """Anything the store refuses; the API maps its subclasses to status codes."""


class DuplicateEvent(StoreError):
    """The batch holds an event whose (table, boot_id, seq) is already stored: nothing of
    the batch was written."""

    def __init__(self, table: str, boot_id: int, seq: int) -> None:
        super().__init__(f"event ({table}, {boot_id}, {seq}) is already stored")
        self.key = (table, boot_id, seq)


class NotFound(StoreError, LookupError):
    """An id that names no row."""


class InvalidEntry(StoreError, ValueError):
    """An entry or record that cannot be stored as given (the caller's mistake)."""


class StoreDamaged(StoreError):
    """The database cannot be the store's: an emptied, truncated, corrupt or non-SQLite file,
    or a database holding tables that are not mjtable's. Refused, never built over: a new
    empty schema would lose the records without a word. The message names the database,
    what is wrong and what to do."""


class StoreAhead(StoreError):
    """The database is at a migration this code does not know: a newer mjtable wrote it, and
    this one cannot know its schema (nor serve it, nor upgrade it)."""

    def __init__(self, where: str, revision: str, head: str | None) -> None:
        super().__init__(
            f"database {where}: at revision {revision}, which this mjtable (newest {head}) "
            "does not know: a newer mjtable wrote it; upgrade mjtable (or restore a backup "
            "this version made)"
        )
        self.revision = revision
