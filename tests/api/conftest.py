"""Async tests here run on asyncio (the server stack's loop); trio is not installed."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
