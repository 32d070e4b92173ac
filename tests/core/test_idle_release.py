"""An idle host gives back its vector copies and model session; the next search rebuilds them."""

import time

import numpy as np

from app.bootstrap import Services
from app.core.domain import SearchFilters
from app.core.settings import ResourceSettings
from app.core.storage.vector_cache import VectorMatrixCache
from app.core.storage.vectors import VectorStore
from app.services.idle_release import release_idle
from app.services.scheduling import JobHost
from tests.conftest import make_message


def _unit(n: int, dims: int = 8, seed: int = 3) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dims)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _everyone(columns: dict[str, np.ndarray]) -> np.ndarray:
    return columns["user_id"] == "u"


def test_an_idle_copy_is_dropped_and_the_next_search_loads_it_with_every_write(tmp_path) -> None:
    collection = VectorStore(tmp_path / "v").collection("t", "m", 8, ("user_id",))
    vectors = _unit(40)
    collection.upsert([f"k{i}" for i in range(40)], vectors, [{"user_id": "u"}] * 40)
    cache = VectorMatrixCache(collection)
    before = [h.key for h in cache.search(vectors[5], 3, _everyone) or []]
    assert before[0] == "k5" and cache.reloads == 1

    now = time.monotonic()
    assert cache.release_if_idle(60, now=now) == 0  # just used: kept
    held = cache.release_if_idle(60, now=now + 61)
    assert held > 40 * 8 * 4 and cache.memory_bytes() == 0 and cache.view() is None

    # Writes while nothing is held are not lost: the next search loads the table as it is now.
    collection.upsert(["late"], vectors[7:8] * -1, [{"user_id": "u"}])
    collection.delete(["k5"])
    after = cache.search(vectors[5], 3, _everyone) or []
    assert cache.reloads == 2
    assert "k5" not in {h.key for h in after}
    assert (cache.search(-vectors[7], 1, _everyone) or [])[0].key == "late"
    assert cache.release_if_idle(0.0) > 0 and cache.release_if_idle(0.0) == 0  # nothing twice


def test_release_idle_drops_the_message_copy_and_search_still_answers(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"budget review number {i}") for i in range(30)])
    first = services.memory.search("budget review", filters=SearchFilters(), loose=True)
    assert first
    copy = services.processor.corpus.matrix()
    assert copy.memory_bytes() > 0

    assert not release_idle(services, 300, 300).anything  # used a moment ago
    assert not release_idle(services, 0, 0, now=time.monotonic() + 10**6).anything  # 0 = never
    assert release_idle(services, 300, 0, now=time.monotonic() + 301).vector_bytes == 0
    released = release_idle(services, 0, 300, now=time.monotonic() + 301)
    assert released.vector_bytes > 0 and copy.memory_bytes() == 0
    assert services.memory.searcher.windows._layout is None

    again = services.memory.search("budget review", filters=SearchFilters(), loose=True)
    assert [h.id for h in again] == [h.id for h in first]
    assert copy.memory_bytes() > 0


def test_the_scheduler_hosts_trim_job_runs_the_idle_release(services: Services) -> None:
    services.memory.ingest([make_message(i) for i in range(5)])
    services.memory.search("message", filters=SearchFilters())
    services.settings.resources = ResourceSettings(model_idle_seconds=0.01, vector_copy_idle_seconds=0.01)
    time.sleep(0.05)
    host = JobHost(services)
    host._trim()  # what the memory-trim job runs every minute
    assert host.last_idle_release is not None and host.last_idle_release.vector_bytes > 0
    assert services.processor.corpus.matrix().memory_bytes() == 0
