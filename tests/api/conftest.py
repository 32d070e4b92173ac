"""API/MCP fixtures on top of tests/conftest.py: the demo chat loaded into the real services."""

from __future__ import annotations

import pytest

from app.bootstrap import Services
from app.core.jsonl import parse_jsonl
from app.core.paths import resource_path

DEMO = resource_path("demo", "conversation.jsonl")


@pytest.fixture
def anyio_backend() -> str:
    # The server stack runs on asyncio; trio is not installed.
    return "asyncio"


@pytest.fixture
def services(services: Services) -> Services:
    """The root `services` (temp SQLite + LanceDB, hashing embedder, fixed clock) with the 24-message demo."""
    result = services.memory.ingest(parse_jsonl(DEMO.read_text(encoding="utf-8").splitlines()))
    assert result.imported == 24
    return services
