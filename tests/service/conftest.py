"""Fixtures of the service tests: the shared broker and an empty database on each backend."""

from tests.brokers import mqtt_url, owned_broker
from tests.store.conftest import pg_admin, store_url

__all__ = ["mqtt_url", "owned_broker", "pg_admin", "store_url"]
