"""Queries through the int8-activation MiniLM: made locally from the pinned weights, close to the
float model's vectors, a fallback to the float model while the file is missing or cannot be made,
and a real search that finds the same answers either way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.embeddings.int8_queries import (
    INT8_FILE,
    INT8_SHA256,
    Int8QueryEmbedder,
    build_int8_model,
    find_int8_model,
    int8_candidates,
)
from app.core.embeddings.model_files import file_sha256, locate_model
from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder
from app.core.settings import EmbeddingSettings, Settings
from tests.conftest import make_message

pytestmark = pytest.mark.model

QUERIES = [
    "when is the standup tomorrow",
    "deploy failed rolling back",
    "Q3 budget spreadsheet travel line",
    "who owns the status page update?",
    "lunch",
    "这是一个中文句子",
]


@pytest.fixture(scope="module")
def installed() -> Path:
    """The int8 file `make install` derived (built here if this environment skipped that step)."""
    found = find_int8_model()
    if found is None:
        found = build_int8_model(locate_model(), int8_candidates()[0])
    return found


@pytest.fixture(scope="module")
def floats() -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder(query_cache_size=0)


def test_int8_queries_are_close_to_the_float_ones(installed: Path, floats: OnnxMiniLMEmbedder) -> None:
    int8 = Int8QueryEmbedder(floats, candidates=[installed], query_cache_size=0)
    assert int8.load_queries() and int8.int8_ready
    cosines = []
    for text in QUERIES:
        vector = int8.embed_query(text)
        assert vector.shape == (384,) and vector.dtype == np.float32
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
        cosines.append(float(vector @ floats.embed_query(text)))
    assert min(cosines) > 0.97 and float(np.mean(cosines)) > 0.985, cosines
    # Not the float model under another name: the activations really are quantized.
    assert max(cosines) < 0.99999
    # Documents are still the float model's (the stored vectors do not change).
    np.testing.assert_array_equal(int8.embed_documents(QUERIES), floats.embed_documents(QUERIES))


def test_missing_or_damaged_file_float_queries_until_made_from_the_pinned_weights(
    tmp_path: Path, floats: OnnxMiniLMEmbedder
) -> None:
    # A damaged file is not used; it is rebuilt in the background (no download: the verified
    # shipped weights are quantized here, byte for byte as pinned), float queries meanwhile.
    target = tmp_path / "models" / INT8_FILE
    target.parent.mkdir()
    target.write_bytes(b"not a model")
    assert find_int8_model([target]) is None
    int8 = Int8QueryEmbedder(floats, candidates=[target], query_cache_size=0)
    first = int8.embed_query("deploy failed rolling back")
    np.testing.assert_array_equal(first, floats.embed_query("deploy failed rolling back"))
    assert int8.wait_until_loaded(timeout=240), int8.failed
    assert file_sha256(target) == INT8_SHA256
    assert [p.name for p in target.parent.iterdir()] == [INT8_FILE]  # no temporary files left
    later = int8.embed_query("deploy failed rolling back")
    assert 0.97 < float(later @ first) < 0.99999


def test_unwritable_place_keeps_float_queries_and_says_why(
    tmp_path: Path, floats: OnnxMiniLMEmbedder
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    int8 = Int8QueryEmbedder(floats, candidates=[blocker / INT8_FILE])
    assert not int8.load_queries()
    assert int8.failed and "cannot write the int8 query model" in int8.failed
    np.testing.assert_array_equal(int8.embed_query("lunch"), floats.embed_query("lunch"))


def test_search_finds_the_same_answers_with_int8_queries(tmp_path: Path, installed: Path) -> None:
    texts = [
        "the deploy failed again, rolling back to yesterday's build",
        "can we move the standup to 10am tomorrow?",
        "here is the Q3 budget spreadsheet, check the travel line",
        "ben owns the status page update this week",
        "lunch at the noodle place on friday?",
        "my flight to Lisbon lands at 6pm",
    ]
    answers: dict[str, list[list[str]]] = {}
    for mode in ("float", "int8"):
        settings = Settings(
            data_dir=tmp_path / mode,
            embedding=EmbeddingSettings(query_activations=mode),  # type: ignore[arg-type]
        )
        services = build_services(settings, clock=FixedClock(1_770_000_000_000))
        try:
            if mode == "int8":
                assert isinstance(services.embedder.active, Int8QueryEmbedder)  # type: ignore[attr-defined]
            services.memory.ingest([make_message(i, content=t) for i, t in enumerate(texts)])
            queries = ["the deploy failed", "standup moved to 10am", "budget travel line", "flight to Lisbon"]
            answers[mode] = [
                [h.content for h in services.memory.search_outcome(q, limit=3, loose=True).hits]
                for q in queries
            ]
        finally:
            services.close()
    assert [a[:1] for a in answers["int8"]] == [a[:1] for a in answers["float"]]
    assert answers["int8"][0][0].startswith("the deploy failed")
