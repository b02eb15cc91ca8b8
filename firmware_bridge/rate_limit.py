"""A token bucket, sans I/O: how many of a flood of like things get logged, answered or served.

The caller passes the time, so a test can drive it on a fake clock.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TokenBucket:
    """`rate` per second on average, bursts of up to `burst`; `held` counts those refused."""

    rate: float
    burst: float
    tokens: float = -1.0
    last: float | None = None
    held: int = 0

    def __post_init__(self) -> None:
        if not self.rate > 0 or not self.burst >= 1:
            raise ValueError(
                f"token bucket: rate {self.rate} must be above 0 and burst {self.burst} at "
                "least 1, or nothing would ever pass"
            )
        if self.tokens < 0:
            self.tokens = self.burst

    def allow(self, now: float) -> bool:
        """True if one more may pass at `now`; otherwise it is counted in `held`."""
        if self.last is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.held += 1
        return False

    def retry_in(self) -> float:
        """Seconds after the last `allow` until one more may pass: what a refusal tells."""
        return max(0.0, (1.0 - self.tokens) / self.rate)

    def take_held(self) -> int:
        """How many were refused since the last call (and reset the count)."""
        held, self.held = self.held, 0
        return held
