"""Retry policy for platform calls: honour Retry-After, else exponential backoff with full jitter."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from app.core.errors import ConnectorRateLimited, ConnectorUnavailable

T = TypeVar("T")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before giving a platform call up.

    Only rate limits and unavailability are retried: auth and not-found errors will not heal
    by waiting. A Retry-After longer than `max_retry_after` is not waited out in-process; the
    error goes up and the next scheduled sync picks the work up again.
    """

    max_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_retry_after: float = 300.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    rng: random.Random = field(default_factory=random.Random, compare=False)

    def delay(self, attempt: int, error: Exception) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None to give up."""
        if attempt >= self.max_attempts:
            return None
        if isinstance(error, ConnectorRateLimited) and error.retry_after is not None:
            if error.retry_after > self.max_retry_after:
                return None
            # The platform told us exactly; a little jitter keeps several clients from lock-step.
            return error.retry_after + self.rng.uniform(0, min(1.0, self.base_delay))
        # "Equal jitter": never less than half the exponential step, so retries really back off.
        ceiling = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        return self.rng.uniform(ceiling / 2, ceiling)

    def call(self, fn: Callable[[], T], *, what: str = "platform call") -> T:
        """Run `fn`, retrying rate-limited and unavailable outcomes per this policy."""
        attempt = 1
        while True:
            try:
                return fn()
            except (ConnectorRateLimited, ConnectorUnavailable) as exc:
                wait = self.delay(attempt, exc)
                if wait is None:
                    raise
                log.info("%s failed (%s); retry %d in %.2fs", what, exc.code, attempt, wait)
                self.sleep(wait)
                attempt += 1
