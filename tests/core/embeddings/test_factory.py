"""build_embedder picks the implementation the settings name, without loading anything."""

from __future__ import annotations

import pytest

from app.core.embeddings.factory import build_embedder
from app.core.embeddings.hashing import HashingEmbedder
from app.core.embeddings.int8_queries import Int8QueryEmbedder
from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder
from app.core.embeddings.openai_compat import OpenAICompatibleEmbedder
from app.core.errors import ConfigError
from app.core.settings import EmbeddingSettings


def test_local_is_the_default_and_lazy() -> None:
    embedder = build_embedder(EmbeddingSettings(), api_key=None)
    assert isinstance(embedder, OnnxMiniLMEmbedder)
    assert not embedder.loaded
    assert (embedder.model_id, embedder.dimensions) == ("all-MiniLM-L6-v2-onnx-int8", 384)


def test_local_with_int8_queries_wraps_the_same_model_lazily() -> None:
    embedder = build_embedder(EmbeddingSettings(query_activations="int8"), api_key=None)
    # Queries through the int8-activation variant, documents through the float model.
    assert isinstance(embedder, Int8QueryEmbedder)
    assert isinstance(embedder.documents, OnnxMiniLMEmbedder)
    assert not embedder.loaded
    assert (embedder.model_id, embedder.dimensions) == ("all-MiniLM-L6-v2-onnx-int8", 384)


def test_openai_uses_model_key_and_dimensions() -> None:
    settings = EmbeddingSettings(provider="openai", model="text-embedding-3-large", dimensions=256)
    embedder = build_embedder(settings, api_key="sk-x")
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert embedder.model_id == "openai:text-embedding-3-large"
    assert embedder.dimensions == 256


def test_openai_without_key_or_base_url_fails_clearly() -> None:
    with pytest.raises(ConfigError, match="API key"):
        build_embedder(EmbeddingSettings(provider="openai"), api_key=None)


def test_hashing() -> None:
    assert isinstance(build_embedder(EmbeddingSettings(provider="hashing"), None), HashingEmbedder)
    sized = build_embedder(EmbeddingSettings(provider="hashing", dimensions=32), None)
    assert sized.dimensions == 32
