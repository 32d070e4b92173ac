"""Conversation windows: a message read together with its neighbours, from vectors already stored.

A reply ("Yes, last Tuesday, with my sister") rarely holds the words of the question it answers;
the turns around it do. Embedding 2–3-turn windows as extra keys would double the embedding work
of every import, so a window's vector is instead the normalized sum of its turns' stored vectors
(a close stand-in for embedding the joined text with a mean-pooling model such as MiniLM), worked
out at query time for the candidates only. On LoCoMo this gave most of the gain of real window
keys at no ingest cost (docs/benchmarks.md, "Retrieval engine: ranking").
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core.storage.vector_cache import MatrixView, VectorMatrixCache

# Two turns before and two after: the widest window that still helped on LoCoMo.
WINDOW_BEFORE = 2
WINDOW_AFTER = 2


@dataclass(frozen=True, slots=True)
class CandidateContext:
    """For each candidate key: its own cosine, its window's cosine and its neighbours' keys."""

    cosines: dict[str, float]
    window_cosines: dict[str, float]
    neighbours: dict[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class _Layout:
    version: Any
    keys: Any  # the view's key array: another collection (model switch) has another one
    row_of: dict[str, int]
    rank: np.ndarray  # row -> position in conversation order
    order: np.ndarray  # position -> row
    group: np.ndarray  # position -> conversation number


class ConversationWindows:
    """Neighbours in (user, platform, channel) time order, recomputed when the table changes."""

    def __init__(self, *, before: int = WINDOW_BEFORE, after: int = WINDOW_AFTER) -> None:
        self.before = before
        self.after = after
        self._lock = threading.Lock()
        self._layout: _Layout | None = None

    def release(self) -> None:
        """Forget the conversation order (it holds the copy's keys); the next search rebuilds it."""
        with self._lock:
            self._layout = None

    def _current(self, snap: MatrixView) -> _Layout:
        with self._lock:
            layout = self._layout
        if layout is not None and layout.version == snap.version:
            return layout
        cols = snap.columns
        order = np.lexsort((cols["timestamp"], cols["channel"], cols["platform"], cols["user_id"]))
        boundary = np.ones(len(order), dtype=bool)
        if len(order) > 1:
            same = np.ones(len(order) - 1, dtype=bool)
            for name in ("user_id", "platform", "channel"):
                column = cols[name][order]
                same &= column[1:] == column[:-1]
            boundary[1:] = ~same
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        layout = _Layout(
            version=snap.version,
            keys=snap.keys,
            row_of={str(k): i for i, k in enumerate(snap.keys) if snap.alive is None or snap.alive[i]},
            rank=rank,
            order=order,
            group=np.cumsum(boundary),
        )
        with self._lock:
            self._layout = layout
        return layout

    def around(
        self, cache: VectorMatrixCache, query: np.ndarray, keys: Sequence[str], *, windows: bool = True
    ) -> CandidateContext | None:
        """Cosines and (unless `windows` is false) windows of `keys`; keys without a stored vector
        are left out. None when the collection is too large to hold in memory."""
        snap = cache.view()
        if snap is None or len(snap.keys) == 0:
            return None
        layout = self._current(snap)
        found = [(key, row) for key in keys if (row := layout.row_of.get(key)) is not None]
        if not found:
            return CandidateContext({}, {}, {})
        rows = np.fromiter((row for _, row in found), dtype=np.int64, count=len(found))
        q = query.astype(np.float32)
        if not windows:  # cosines only
            cosines = snap.matrix[rows] @ q
            return CandidateContext({key: float(cosines[i]) for i, (key, _) in enumerate(found)}, {}, {})
        # Positions of each candidate's window in conversation order (one row per candidate),
        # kept where they stay inside the array and the same conversation and are not archived.
        offsets = np.array([d for d in range(-self.before, self.after + 1) if d != 0], dtype=np.int64)
        centre = layout.rank[rows]
        positions = centre[:, None] + offsets[None, :]
        inside = (positions >= 0) & (positions < len(layout.order))
        positions = np.clip(positions, 0, len(layout.order) - 1)
        others = layout.order[positions]
        valid = inside & (layout.group[positions] == layout.group[centre][:, None])
        if snap.alive is not None:  # rows deleted since the copy was loaded
            valid &= snap.alive[others]
        archived = snap.columns.get("archived")
        if archived is not None:
            # Archived turns keep no text, only their summary: not part of the window.
            valid &= ~archived[others].astype(bool)
        own = snap.matrix[rows]
        neighbour_cos = (snap.matrix[others] @ q) * valid  # (n, window) cosines, 0 where invalid
        cosines = own @ q
        # |sum of vectors| from the Gram matrix would need n × w² products; summing is cheaper.
        summed = own + (snap.matrix[others] * valid[:, :, None]).sum(axis=1)
        norms = np.maximum(np.linalg.norm(summed, axis=1), 1e-9)
        window = (cosines + neighbour_cos.sum(axis=1)) / norms
        # Plain Python values in one pass each (per-element NumPy indexing and str() were a
        # fifth of this function's time); the same floats and keys as element by element.
        keys_around = snap.keys[others].tolist()
        valid_rows = valid.tolist()
        result = CandidateContext({}, {}, {})
        for (key, _), cosine, window_cosine, near, ok in zip(
            found, cosines.tolist(), window.tolist(), keys_around, valid_rows, strict=True
        ):
            result.cosines[key] = cosine
            if any(ok):
                result.window_cosines[key] = window_cosine
                result.neighbours[key] = tuple(str(k) for k, keep in zip(near, ok, strict=True) if keep)
        return result
