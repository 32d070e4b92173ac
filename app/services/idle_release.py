"""Give back what an idle host holds for speed: the embedding session and the vector copies.

The desktop app sits in the tray all day and `strata serve` waits for agents; between uses the
ONNX session (~170 MB) and the in-memory vector copies (~240 MB at 100k messages) would stay
resident for nothing. The scheduler host's memory-trim job calls `release_idle` every minute;
what is dropped is rebuilt by the next search (its cost: docs/benchmarks.md, "Idle memory").
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IdleRelease:
    model: bool  # the embedding session was dropped
    vector_bytes: int  # what the dropped vector copies held

    @property
    def anything(self) -> bool:
        return self.model or self.vector_bytes > 0


def release_idle(
    services: Any, model_seconds: float, vector_seconds: float, now: float | None = None
) -> IdleRelease:
    """Drop the model session unused for `model_seconds` and the vector copies unused for
    `vector_seconds` (0: never)."""
    now = time.monotonic() if now is None else now
    vector_bytes = services.index.release_idle(vector_seconds, now) if vector_seconds > 0 else 0
    if vector_bytes:
        # The conversation order holds the copy's keys; without it they would stay resident.
        services.memory.searcher.windows.release()
        services.memory.searcher.instances.release()  # list questions' word vectors
    release_model = getattr(services.embedder, "release_if_idle", None)
    model = bool(release_model(model_seconds, now)) if release_model and model_seconds > 0 else False
    released = IdleRelease(model, vector_bytes)
    if released.anything:
        log.info(
            "idle: released %s%.0f MB of vector copies",
            "the embedding model and " if model else "",
            vector_bytes / 1e6,
        )
    return released
