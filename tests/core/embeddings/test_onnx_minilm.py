"""The real int8 MiniLM model: shapes, norms, determinism, batching, long inputs and semantic sanity."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.embeddings.onnx_minilm import DIMENSIONS, OnnxMiniLMEmbedder

pytestmark = pytest.mark.model

SENTENCES = [
    "Can we move the standup to 10am tomorrow?",
    "the deploy failed again, rolling back",
    "ok",
    "",
    "Here is the Q3 budget spreadsheet, please review the travel line before Friday.",
    "这是一个中文句子。",
    "lunch? 🍕",
    "word " * 40,
]


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLMEmbedder:
    model = OnnxMiniLMEmbedder()
    model.load()
    return model


def test_construction_is_lazy() -> None:
    model = OnnxMiniLMEmbedder()
    assert not model.loaded
    assert model.model_id == "all-MiniLM-L6-v2-onnx-int8"
    assert model.dimensions == 384
    assert not model.loaded


def test_shapes_dtype_and_unit_norm(embedder: OnnxMiniLMEmbedder) -> None:
    vectors = embedder.embed_documents(SENTENCES)
    assert vectors.shape == (len(SENTENCES), DIMENSIONS)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query("when is standup")
    assert query.shape == (DIMENSIONS,)
    assert query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


def test_empty_list(embedder: OnnxMiniLMEmbedder) -> None:
    empty = embedder.embed_documents([])
    assert empty.shape == (0, DIMENSIONS)
    assert empty.dtype == np.float32


def test_deterministic(embedder: OnnxMiniLMEmbedder) -> None:
    first = embedder.embed_documents(SENTENCES)
    second = embedder.embed_documents(SENTENCES)
    np.testing.assert_array_equal(first, second)


def test_batch_equals_one_by_one_in_any_order(embedder: OnnxMiniLMEmbedder) -> None:
    # More texts than one batch, mixed lengths, so sorting, padding and order restoration all matter.
    rng = np.random.default_rng(7)
    words = [
        "alpha",
        "budget",
        "deploy",
        "server",
        "crash",
        "coffee",
        "meeting",
        "friday",
        "release",
        "42",
        "über",
        "東京",
    ]
    texts = [" ".join(rng.choice(words, size=int(rng.integers(1, 30)))) for _ in range(33)] + SENTENCES
    batched = embedder.embed_documents(texts)
    one_by_one = np.stack([embedder.embed_documents([t])[0] for t in texts])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    perm = rng.permutation(len(texts))
    shuffled = embedder.embed_documents([texts[i] for i in perm])
    np.testing.assert_allclose(shuffled, batched[perm], atol=1e-5)


def test_long_text_is_truncated_at_256_tokens_not_128(embedder: OnnxMiniLMEmbedder) -> None:
    head = " ".join(f"token{i}" for i in range(60))  # well over 128 word pieces on its own
    long_a = head + " the weather is sunny and warm" * 5
    long_b = head + " the quarterly report is overdue" * 5
    vectors = embedder.embed_documents([long_a, long_b, "x " * 5000])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # With 128-token truncation both texts would be cut inside the shared head and embed identically.
    assert float(vectors[0] @ vectors[1]) < 0.999


@pytest.mark.parametrize(
    ("anchor", "paraphrase", "unrelated"),
    [
        (
            "The meeting has been moved to Thursday.",
            "We rescheduled the meeting for Thursday.",
            "My cat loves sleeping in the sun.",
        ),
        (
            "How do I reset my password?",
            "I forgot my password, how can I change it?",
            "The stock market fell sharply today.",
        ),
        (
            "The server crashed during the deployment.",
            "Deployment caused the server to go down.",
            "She baked a chocolate cake for the party.",
        ),
        (
            "Let's grab lunch at noon.",
            "Want to get something to eat at 12?",
            "The contract must be signed by the legal team.",
        ),
    ],
)
def test_paraphrases_are_closer_than_unrelated(
    embedder: OnnxMiniLMEmbedder, anchor: str, paraphrase: str, unrelated: str
) -> None:
    a, p, u = embedder.embed_documents([anchor, paraphrase, unrelated])
    assert float(a @ p) > float(a @ u) + 0.2


def test_query_cache_returns_equal_independent_copies(embedder: OnnxMiniLMEmbedder) -> None:
    first = embedder.embed_query("where is the budget file")
    first[:] = 0.0  # mutating a returned vector must not poison the cache
    second = embedder.embed_query("where is the budget file")
    np.testing.assert_allclose(second, embedder.embed_documents(["where is the budget file"])[0], atol=1e-6)


def test_query_cache_is_bounded() -> None:
    model = OnnxMiniLMEmbedder(query_cache_size=2)
    for text in ["one", "two", "three", "two"]:
        model.embed_query(text)
    assert list(model._query_cache) == ["three", "two"]


def test_rejects_non_strings(embedder: OnnxMiniLMEmbedder) -> None:
    with pytest.raises(TypeError, match="expects strings"):
        embedder.embed_documents(["fine", 3])  # type: ignore[list-item]


def test_an_idle_session_is_released_and_rebuilt_on_the_next_use() -> None:
    import threading
    import time

    model = OnnxMiniLMEmbedder()
    first = model.embed_documents(SENTENCES[:3])
    assert model.loaded and model.loads == 1
    assert not model.release_if_idle(300)  # just used
    assert model.release_if_idle(300, now=time.monotonic() + 301)
    assert not model.loaded and not model.release_if_idle(0.0)  # nothing left to release
    again = model.embed_documents(SENTENCES[:3])
    assert model.loads == 2
    np.testing.assert_allclose(first, again, atol=1e-6)  # same model, same vectors

    # A release from another thread while a long batch runs cannot break that batch.
    results: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: results.append(model.embed_documents(SENTENCES * 8)))
    worker.start()
    while worker.is_alive():
        model.release_if_idle(0.0)
        time.sleep(0.001)
    worker.join()
    assert results and results[0].shape == (len(SENTENCES) * 8, DIMENSIONS)
