"""Shared fixtures for connector tests: a retry policy that records its waits instead of sleeping."""

from __future__ import annotations

import random

import pytest

from connectors.retry import RetryPolicy


class RecordingSleep:
    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def retry(sleeps: RecordingSleep) -> RetryPolicy:
    return RetryPolicy(max_attempts=4, base_delay=0.5, max_delay=4, sleep=sleeps, rng=random.Random(7))
