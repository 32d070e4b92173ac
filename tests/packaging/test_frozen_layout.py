"""The paths a PyInstaller bundle relies on: resources, tokenizer and its sha256 check under sys._MEIPASS."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from app.core.embeddings.model_files import (
    MODEL_ID,
    TOKENIZER_PATH_ENV,
    bundled_model_dir,
    locate_tokenizer,
)
from app.core.errors import ModelError
from app.core.paths import project_root, resource_path
from tests.conftest import PROJECT_ROOT


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake one-folder bundle root laid out as packaging/strata.spec lays it out."""
    tokenizer = locate_tokenizer()  # the real, installed file (before we pretend to be frozen)
    root = tmp_path / "_internal"
    (root / "models" / MODEL_ID).mkdir(parents=True)
    shutil.copy(tokenizer, root / "models" / MODEL_ID / "tokenizer.json")
    shutil.copytree(PROJECT_ROOT / "resources", root / "resources")
    # What the PyInstaller bootloader sets: both point at the unpacked bundle.
    monkeypatch.setattr(sys, "_MEIPASS", str(root), raising=False)
    monkeypatch.setattr(sys, "prefix", str(root))
    monkeypatch.delenv(TOKENIZER_PATH_ENV, raising=False)
    return root


def test_frozen_paths_point_into_the_bundle(bundle: Path) -> None:
    assert project_root() == bundle
    assert resource_path("licenses") == bundle / "resources" / "licenses"
    assert any(resource_path("licenses").iterdir())
    assert resource_path("demo", "conversation.jsonl").is_file()
    assert bundled_model_dir() == bundle / "models" / MODEL_ID


def test_frozen_app_finds_the_bundled_tokenizer(bundle: Path) -> None:
    assert locate_tokenizer() == bundle / "models" / MODEL_ID / "tokenizer.json"


def test_frozen_app_still_refuses_a_tampered_tokenizer(bundle: Path) -> None:
    target = bundle / "models" / MODEL_ID / "tokenizer.json"
    target.write_text(target.read_text()[:-10] + "tampered }")
    with pytest.raises(ModelError, match="corrupt or the wrong version"):
        locate_tokenizer()
