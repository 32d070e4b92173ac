"""Fixtures: real services (SQLite + LanceDB under tmp, deterministic embedder) loaded with the demo chat."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bootstrap import Services, build_services
from app.core.jsonl import parse_jsonl
from app.core.paths import resource_path
from app.core.settings import load_settings

DEMO = resource_path("demo", "conversation.jsonl")


@pytest.fixture
def anyio_backend() -> str:
    # The server stack runs on asyncio; trio is not installed.
    return "asyncio"


def open_services(data_dir: Path, *, demo: bool = True) -> Services:
    """Services on `data_dir`; its settings.toml selects the hashing embedder, so subprocesses
    (stdio MCP server, CLI) opening the same directory embed identically."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "settings.toml").write_text('[embedding]\nprovider = "hashing"\n', encoding="utf-8")
    services = build_services(load_settings(data_dir))
    assert services.embedder.model_id.startswith("hashing")
    if demo:
        services.memory.ingest(parse_jsonl(DEMO.read_text(encoding="utf-8").splitlines()))
    return services


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    svc = open_services(tmp_path / "data")
    yield svc
    svc.close()
