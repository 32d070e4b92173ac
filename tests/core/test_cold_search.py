"""The first search after an idle release: copies load beside its query embedding, the row-id map
is mapped from its saved file instead of rebuilt, and the answers are the warm search's."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.domain import SearchFilters
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage import vector_file_build
from app.core.storage.vector_cache import VectorMatrixCache
from app.core.storage.vectors import VectorCollection, VectorStore
from app.services.idle_release import release_idle
from tests.conftest import make_message

DIM = 8


def _unit(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _with_file(path, keys: list[str]) -> tuple[VectorCollection, dict[str, np.ndarray]]:
    """A message-keyed collection with its vector file built (which writes the table's token)."""
    collection = VectorStore(path).collection("messages", "test-model", DIM, ["channel"])
    vectors = _unit(len(keys), seed=1)
    collection.upsert(keys, vectors, [{"channel": "c"} for _ in keys])
    assert collection.file is not None
    vector_file_build.build(
        collection.table, collection.path, collection.file.path.parent, collection.name, DIM
    )
    return collection, dict(zip(keys, vectors, strict=True))


def _same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert sorted(got) == sorted(want)
    for key, vector in want.items():
        np.testing.assert_array_equal(got[key], vector)


def test_the_row_id_map_is_saved_and_mapped_back_after_a_release(tmp_path) -> None:
    collection, truth = _with_file(tmp_path / "vectors.lance", [str(i) for i in range(1, 201)])
    asked = [str(i) for i in range(1, 240, 7)]
    want = {k: v for k, v in truth.items() if k in asked}
    _same(collection.vectors_of(asked), want)
    assert collection._rowids.builds == 1 and collection._rowids.saved is not None
    assert collection._rowids.saved.path.exists()

    collection.release()  # the idle release: map and file unmapped
    _same(collection.vectors_of(asked), want)
    assert (collection._rowids.builds, collection._rowids.loads) == (0, 1)  # mapped, not rebuilt

    # Another process at the same version maps the same file.
    other = VectorStore(tmp_path / "vectors.lance").collection("messages", "test-model", DIM, ["channel"])
    _same(other.vectors_of(asked), want)
    assert (other._rowids.builds, other._rowids.loads) == (0, 1)

    # A write moves the version: the saved map is stale, so it is rebuilt (and saved anew).
    moved = _unit(3, seed=2)
    collection.upsert(["1", "8", "15"], moved, [{"channel": "c"}] * 3)
    want |= dict(zip(["1", "8", "15"], moved, strict=True))
    collection.release()
    collection._rowids.refresh_seconds = 0.0
    _same(collection.vectors_of(asked), want)
    assert (collection._rowids.builds, collection._rowids.loads) == (1, 0)


def test_a_saved_map_of_a_dropped_table_is_not_used(tmp_path) -> None:
    """A table made again restarts its versions: the token tells the old map from a new one."""
    store = tmp_path / "vectors.lance"
    collection, _ = _with_file(store, [str(i) for i in range(1, 101)])
    collection.vectors_of(["5"])
    saved = collection._rowids.saved
    assert saved is not None and saved.path.exists()
    kept = saved.path.read_bytes()
    VectorStore(store).drop("messages", "test-model", DIM)
    assert not saved.path.exists()  # dropped with its collection

    again, truth = _with_file(store, [str(i) for i in range(50, 151)])
    saved.path.write_bytes(kept)  # as if the old map had been left behind
    _same(again.vectors_of(["5", "60"]), {"60": truth["60"]})
    assert (again._rowids.loads, again._rowids.builds) == (0, 1)


def test_a_prefetched_copy_is_the_one_the_search_uses(tmp_path) -> None:
    collection = VectorStore(tmp_path / "v").collection("t", "m", DIM, ("user_id",))
    vectors = _unit(300, seed=3)
    collection.upsert([f"k{i}" for i in range(300)], vectors, [{"user_id": "u"}] * 300)
    cache = VectorMatrixCache(collection)
    everyone: Callable[[dict[str, np.ndarray]], np.ndarray] = lambda c: c["user_id"] == "u"  # noqa: E731
    warm = cache.search(vectors[9], 5, everyone)
    assert cache.release_if_idle(0.0) > 0 and cache.reloads == 1

    cache.prefetch()
    cache.prefetch()  # a second search starting meanwhile starts no second load
    cold = cache.search(vectors[9], 5, everyone)  # waits for the load under way
    assert cold == warm
    assert cache.reloads == 2  # the prefetch's load only: the search loaded nothing itself
    cache.prefetch()  # held now: nothing to do
    assert cache.reloads == 2 and cache.search(vectors[9], 5, everyone) == warm


class _GatedEmbedder(HashingEmbedder):
    """The hashing embedder, whose query embeddings wait (up to `patience` s) for `until()`: a
    search whose copies only start loading after its embedding makes it wait in vain."""

    def __init__(self, patience: float = 3.0) -> None:
        super().__init__()
        self.until: Callable[[], bool] | None = None
        self.patience = patience
        self.waited_in_vain = 0
        self.gated = 0

    def _gate(self) -> None:
        if self.until is None:
            return
        self.gated += 1
        deadline = time.monotonic() + self.patience
        while not self.until():
            if time.monotonic() > deadline:
                self.waited_in_vain += 1
                return
            time.sleep(0.005)

    def embed_query(self, text: str) -> np.ndarray:
        self._gate()
        return super().embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        self._gate()
        return super().embed_queries(texts)


def test_the_first_search_after_a_release_loads_its_copies_beside_the_embedding(tmp_path) -> None:
    embedder = _GatedEmbedder()
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(provider="hashing"))
    services = build_services(settings, clock=FixedClock(1_800_000_000_000), embedder=embedder)
    try:
        texts = [
            "The budget review moved to Friday morning. Finance wants the quarterly numbers first.",
            "Anna booked the flight to Berlin yesterday. The hotel near the venue was full.",
            "Lunch is at noon in the big room. Bring the slides for the product demo.",
        ]
        services.memory.ingest([make_message(i, content=f"{texts[i % 3]} Note {i}.") for i in range(40)])
        assert services.memory.keys is not None
        services.memory.keys.wait()
        services.memory.search("flight to berlin", filters=SearchFilters(), loose=True)
        messages, keys = services.processor.corpus.matrix(), services.memory.keys.corpus.matrix()
        assert messages.memory_bytes() > 0 and keys.memory_bytes() > 0
        assert release_idle(services, 0, 1, now=time.monotonic() + 10).vector_bytes > 0
        loaded = (messages.reloads, keys.reloads)

        # The query embedding now waits until both copies are loaded again: they must load
        # beside it, not after it (a new text, so no cached query vector skips the model).
        embedder.until = lambda: messages.reloads > loaded[0] and keys.reloads > loaded[1]
        cold = services.memory.search("budget review friday", filters=SearchFilters(), loose=True)
        assert embedder.gated > 0 and embedder.waited_in_vain == 0
        assert (messages.reloads, keys.reloads) == (loaded[0] + 1, loaded[1] + 1)  # one load each
        embedder.until = None
        warm = services.memory.search("budget review friday", filters=SearchFilters(), loose=True)
        assert cold and [(h.id, round(h.score, 9)) for h in cold] == [(h.id, round(h.score, 9)) for h in warm]
    finally:
        services.close()


def test_a_copy_reloaded_at_the_same_version_keeps_its_principal_axes(tmp_path) -> None:
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",))
    vectors = np.random.default_rng(4).normal(size=(400, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    collection.upsert([f"k{i}" for i in range(400)], vectors, [{"user_id": "u"}] * 400)
    cache = VectorMatrixCache(collection, project_min_rows=100, projected_dimensions=8, rescore_rows=40)
    everyone: Callable[[dict[str, np.ndarray]], np.ndarray] = lambda c: c["user_id"] == "u"  # noqa: E731
    warm = cache.search(vectors[7], 5, everyone)
    axes = cache._rows.basis if cache._rows is not None else None
    assert axes is not None

    cache.release_if_idle(0.0)
    assert cache.search(vectors[7], 5, everyone) == warm
    assert cache._rows is not None and cache._rows.basis is axes  # kept, not computed again
    np.testing.assert_array_equal(cache._rows.projected[:400], (vectors @ axes).astype(np.float32))

    # A write since: the table is not the one the axes came from, so they are computed anew.
    collection.upsert(["k1"], -vectors[1:2], [{"user_id": "u"}])
    cache.release_if_idle(0.0)
    cache.search(vectors[7], 5, everyone)
    assert cache._rows is not None and cache._rows.basis is not axes
