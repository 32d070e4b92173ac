"""Choose the embedder named in settings."""

from __future__ import annotations

from app.core.embeddings.base import Embedder
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import ConfigError
from app.core.settings import EmbeddingSettings


def build_embedder(settings: EmbeddingSettings, api_key: str | None = None) -> Embedder:
    if settings.provider == "hashing":
        return HashingEmbedder(settings.dimensions or 64)
    raise ConfigError(f"embedding provider {settings.provider!r} is not available in this build")
