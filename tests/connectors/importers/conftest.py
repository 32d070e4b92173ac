"""Shared helpers for importer tests: run an importer to completion, locate fixture files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from app.core.domain import RawMessage
from connectors.importers.base import Importer, ImportLog

FIXTURES = Path(__file__).parent / "fixtures"

Run = Callable[[Importer, Path], tuple[list[RawMessage], ImportLog]]


def run_importer(importer: Importer, path: Path) -> tuple[list[RawMessage], ImportLog]:
    log = ImportLog()
    return list(importer.messages(path, log)), log


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def run() -> Run:
    return run_importer
