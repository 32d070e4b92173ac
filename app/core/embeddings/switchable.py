"""An Embedder that can be switched to another model in place, so every user switches at once."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np

from app.core.embeddings.base import Embedder


class SwitchableEmbedder:
    """Delegates to the active model; `switch` swaps it for every holder in this process.

    Search, ingest and repair all hold this one object, so when a re-embed job completes, the
    query embeddings, the collection names and the stamps change model in the same instant."""

    def __init__(self, active: Embedder) -> None:
        self._active = active
        self._lock = threading.Lock()

    @property
    def active(self) -> Embedder:
        return self._active

    def switch(self, embedder: Embedder) -> None:
        with self._lock:
            self._active = embedder

    @property
    def model_id(self) -> str:
        return self._active.model_id

    @property
    def dimensions(self) -> int:
        return self._active.dimensions

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._active.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._active.embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The active model's `embed_queries` (several texts in one call) where it has one."""
        active = self._active
        batch = getattr(active, "embed_queries", None)
        return batch(texts) if batch is not None else [active.embed_query(t) for t in texts]

    def remember_queries(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Hand query vectors made elsewhere to the active model's query cache (if it has one)."""
        remember = getattr(self._active, "remember_queries", None)
        if remember is not None:
            remember(vectors)

    def release_if_idle(self, idle_seconds: float, now: float | None = None) -> bool:
        """Let the active model drop its session when idle (models without one keep nothing)."""
        release = getattr(self._active, "release_if_idle", None)
        return bool(release(idle_seconds, now)) if release is not None else False
