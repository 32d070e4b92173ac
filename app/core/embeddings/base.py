"""The Embedder seam: anything that turns texts into fixed-size, L2-normalized vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """`model_id` + `dimensions` are stored with every vector so models never mix in one index."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape (len(texts), dimensions), rows L2-normalized."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """float32 vector of shape (dimensions,), L2-normalized."""
        ...
