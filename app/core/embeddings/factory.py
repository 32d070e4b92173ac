"""Builds the configured Embedder; called once from the composition root."""

from __future__ import annotations

from app.core.embeddings.base import Embedder
from app.core.embeddings.hashing import HashingEmbedder
from app.core.embeddings.multilingual_e5 import DEFAULT_BATCH_SIZE as MULTILINGUAL_BATCH_SIZE
from app.core.embeddings.multilingual_e5 import MultilingualE5Embedder
from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder
from app.core.errors import ConfigError
from app.core.settings import EmbeddingSettings

HASHING_DEFAULT_DIMENSIONS = 64


def build_embedder(
    settings: EmbeddingSettings, api_key: str | None = None, *, threads: int | None = None
) -> Embedder:
    """`local` (offline MiniLM), `multilingual` (offline multilingual-e5-small), `openai` or `hashing`.

    The local models load lazily, on first use. `threads` sets the local MiniLM's intra-op
    threads (default: one per core, up to 4); a search worker process takes 1, since its
    parallelism comes from the processes.
    """
    if settings.provider == "local":
        documents = OnnxMiniLMEmbedder(batch_size=settings.batch_size, threads=threads)
        if settings.query_activations == "int8":
            from app.core.embeddings.int8_queries import Int8QueryEmbedder

            return Int8QueryEmbedder(documents)
        return documents
    if settings.provider == "multilingual":
        return MultilingualE5Embedder(batch_size=min(settings.batch_size, MULTILINGUAL_BATCH_SIZE))
    if settings.provider == "openai":
        # The openai SDK takes ~1 s to import; only users who chose this provider pay for it.
        from app.core.embeddings.openai_compat import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(
            model=settings.model,
            base_url=settings.base_url,
            api_key=api_key,
            dimensions=settings.dimensions,
            batch_size=settings.batch_size,
        )
    if settings.provider == "hashing":
        return HashingEmbedder(settings.dimensions or HASHING_DEFAULT_DIMENSIONS)
    # Unreachable through validated settings; kept so a hand-built value fails clearly.
    raise ConfigError(
        f"unknown embedding provider {settings.provider!r}",
        hint="use one of: local, multilingual, openai, hashing",
    )
