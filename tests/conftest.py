"""Shared fixtures: a temp data dir with real SQLite + LanceDB, a fixed clock, a test embedder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.bootstrap import Services, build_services
from app.core.clock import FixedClock, datetime_to_ms
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.logs.setup import reset_logging
from app.core.settings import EmbeddingSettings, Settings

# Tests store connector tokens and LLM keys: never in the developer's real OS keyring (the
# services then use the 0600 secrets file in the temp data dir).
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

# A fixed "now" for every test: Saturday 2026-11-21 12:00 UTC.
NOW_MS = datetime_to_ms(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _no_log_setup_left() -> Iterator[None]:
    """A CLI command run in-process installs Strata's log handlers (a file in its temp data dir):
    the next test starts without them."""
    yield
    reset_logging()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW_MS)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="hashing"))


@pytest.fixture
def services(settings: Settings, clock: FixedClock) -> Iterator[Services]:
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    yield svc
    svc.close()


def make_message(n: int = 0, **overrides: object) -> RawMessage:
    """A valid RawMessage; `n` varies id, time and text."""
    values: dict[str, object] = {
        "platform": "slack",
        "message_id": f"m{n}",
        "channel": "general",
        "person": "anna",
        "timestamp": NOW_MS - 3_600_000 + n * 1000,
        "content": f"message number {n}",
    }
    values.update(overrides)
    return RawMessage(**values)  # type: ignore[arg-type]


@pytest.fixture
def cli_env(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment for running the CLI on the temp data dir with the test embedder."""
    env = {"STRATA_DATA_DIR": str(data_dir), "STRATA_EMBEDDING__PROVIDER": "hashing"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env
