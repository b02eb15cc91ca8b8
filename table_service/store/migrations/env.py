"""Alembic's entry point for the store's migrations (run by `Store.migrate()`).

`Store.migrate()` passes its own connection in `config.attributes["connection"]`, so
the upgrade runs inside the store's transaction (and lock); otherwise the URL of the
configuration is used (`alembic_config(url)`), or SQL is printed in offline mode.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from table_service.store.models import Base

config = context.config
target_metadata = Base.metadata


def run(connection: Connection) -> None:
    """Migrate over one connection; SQLite alters tables in batch (copy and move)."""
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    if context.is_offline_mode():
        context.configure(
            url=config.get_main_option("sqlalchemy.url"),
            target_metadata=target_metadata,
            literal_binds=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = config.attributes.get("connection")
    if connection is not None:
        run(connection)
        return
    from table_service.store.store import make_engine

    engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
    try:
        with engine.connect() as own:
            run(own)
            own.commit()
    finally:
        engine.dispose()


main()
