"""The query vectors one search needs (the query; without its names; the floor's text), embedded together."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future

import numpy as np

from app.core.embeddings.base import Embedder


def batched(embedder: Embedder) -> Callable[[Sequence[str]], list[np.ndarray]] | None:
    """The embedder's `embed_queries` (several texts in one model call), None if it has none.

    A switchable embedder batches when its active model does: a model that cannot give the same
    vectors batched (int8 query activations are scaled per call, padding included) has none."""
    found = getattr(embedder, "embed_queries", None)
    inner = getattr(embedder, "active", None)
    if inner is not None and getattr(inner, "embed_queries", None) is None:
        return None
    return found if callable(found) else None


class QueryVectors:
    """Vectors of `texts` (the first is the query itself): in one model call where the embedder
    batches them (one call of three short texts costs less CPU than three, and ONNX Runtime
    spreads one call over both cores as it would two calls side by side); otherwise the first
    here and the others beside it on `pool`, as each text had its own call before."""

    def __init__(self, embedder: Embedder, texts: Sequence[str], pool: Executor) -> None:
        unique = list(dict.fromkeys(texts))
        self._ready: dict[str, np.ndarray] = {}
        self._later: dict[str, Future[np.ndarray]] = {}
        batch = batched(embedder) if len(unique) > 1 else None
        if batch is not None:
            self._ready = dict(zip(unique, batch(unique), strict=True))
        else:
            self._later = {t: pool.submit(embedder.embed_query, t) for t in unique[1:]}
            self._ready = {unique[0]: embedder.embed_query(unique[0])} if unique else {}

    def __getitem__(self, text: str) -> np.ndarray:
        if text in self._ready:
            return self._ready[text]
        return self._later[text].result()

    def __contains__(self, text: object) -> bool:
        return text in self._ready or text in self._later
