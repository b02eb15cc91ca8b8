"""Tests of the service's records (table_service/store)."""
