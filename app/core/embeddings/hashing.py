"""A deterministic bag-of-words embedder: no model, same text → same vector.

Used by tests where the model is not the subject, and selectable (`embedding.provider =
"hashing"`) for machines where the ONNX runtime cannot load. It captures word overlap only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    def __init__(self, dimensions: int = 64) -> None:
        self._dimensions = dimensions

    @property
    def model_id(self) -> str:
        return f"hashing-bow-{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def _one(self, text: str) -> np.ndarray:
        vec = np.zeros(self._dimensions, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self._dimensions
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[bucket] += sign
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            return vec
        return vec / norm

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dimensions), dtype=np.float32)
        return np.stack([self._one(t) for t in texts]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._one(text)

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """`embed_query` of each text (the batched form searches ask for, query_vectors.py)."""
        return [self.embed_query(t) for t in texts]
