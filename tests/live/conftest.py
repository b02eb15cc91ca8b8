"""Fixtures of the live-stream tests: the shared brokers."""

from tests.brokers import mqtt_url, owned_broker

__all__ = ["mqtt_url", "owned_broker"]
