"""Shared test settings."""

from hypothesis import HealthCheck, settings

# Winning hands are large by nature (17 tiles and their flags): the smallest
# example is necessarily big, which is not a sign of a bad strategy here.
settings.register_profile(
    "mjtable",
    suppress_health_check=[HealthCheck.large_base_example, HealthCheck.too_slow],
    deadline=None,
)
settings.load_profile("mjtable")
