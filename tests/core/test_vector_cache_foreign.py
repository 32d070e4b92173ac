"""Another process's commits reach the in-memory copy row by row, never by a whole reload."""

import time

import numpy as np

from app.core.storage.vector_cache import VectorMatrixCache
from app.core.storage.vector_rows import UNKNOWN
from app.core.storage.vectors import VectorCollection, VectorStore

COLUMNS = ("user_id", "channel", "archived")


def _unit(n: int, seed: int, dims: int = 8) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dims)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _pair(tmp_path) -> tuple[VectorCollection, VectorCollection]:
    ours = VectorStore(tmp_path / "v").collection("t", "m", 8, COLUMNS)
    theirs = VectorStore(tmp_path / "v").collection("t", "m", 8, COLUMNS)  # another process
    return ours, theirs


def _caught_up(cache: VectorMatrixCache, count: int) -> None:
    """Search (which notices the other commit) until `count` catch-ups were applied."""
    deadline = time.monotonic() + 15
    while cache.catch_ups < count:
        assert time.monotonic() < deadline, "the copy never caught up"
        cache.search(_unit(1, 0)[0], 1, lambda c: c["user_id"] == "u")
        time.sleep(0.05)


def _exact(stored: dict[str, np.ndarray], query: np.ndarray, k: int) -> list[str]:
    keys = list(stored)
    scores = np.array([stored[key] @ query for key in keys])
    return [keys[i] for i in np.argsort(-scores)[:k]]


def test_appends_rewrites_column_updates_and_deletes_of_another_process_are_read_row_by_row(
    tmp_path,
) -> None:
    ours, theirs = _pair(tmp_path)
    base = _unit(300, 1)
    stored = {f"k{i}": base[i] for i in range(300)}
    ours.upsert(list(stored), base, [{"user_id": "u", "channel": "c"}] * 300)
    cache = VectorMatrixCache(ours)
    query = _unit(1, 2)[0]
    assert [h.key for h in cache.search(query, 5, lambda c: c["user_id"] == "u") or []] == _exact(
        stored, query, 5
    )
    assert cache.reloads == 1

    # An import beside us: 20 new rows, one re-embedded row (now equal to the query), a column
    # change on two rows, and two deletes, in four commits.
    fresh = _unit(20, 3)
    theirs.upsert([f"n{i}" for i in range(20)], fresh, [{"user_id": "u", "channel": "new-channel"}] * 20)
    stored.update({f"n{i}": fresh[i] for i in range(20)})
    theirs.upsert(["k7"], query[None, :], [{"user_id": "u", "channel": "c"}])
    stored["k7"] = query.copy()
    theirs.update_columns(["k1", "k2"], {"archived": True})
    theirs.delete(["k3", "k4"])
    stored.pop("k3"), stored.pop("k4")
    _caught_up(cache, 1)

    assert cache.reloads == 1  # never a whole reload
    assert cache.fetched_rows <= 20 + 1 + 2  # only what changed was read
    hits = cache.search(query, 5, lambda c: c["user_id"] == "u") or []
    assert [h.key for h in hits] == _exact(stored, query, 5) and hits[0].key == "k7"
    archived = cache.search(query, 50, lambda c: c["archived"]) or []
    assert {h.key for h in archived} == {"k1", "k2"}
    channel = cache.search(query, 50, lambda c: c["channel"] == "new-channel") or []
    assert len(channel) == 20
    everyone = cache.search(query, 1000, lambda c: c["user_id"] == "u") or []
    assert {h.key for h in everyone} == set(stored)


def test_a_compaction_here_costs_no_refetch_and_one_elsewhere_one_streamed_load(tmp_path) -> None:
    ours, theirs = _pair(tmp_path)
    base = _unit(200, 4)
    for start in range(0, 200, 50):  # several fragments, so compaction rewrites rows
        keys = [f"k{i}" for i in range(start, start + 50)]
        ours.upsert(keys, base[start : start + 50], [{"user_id": "u"}] * 50)
    cache = VectorMatrixCache(ours)
    cache.search(base[0], 1, lambda c: c["user_id"] == "u")
    ours.optimize()  # this process compacts: rows keep their values, LanceDB ids change
    deadline = time.monotonic() + 10
    while cache._reloading or (cache._rows is not None and (cache._rows.rowids[:200] == UNKNOWN).any()):
        assert time.monotonic() < deadline
        time.sleep(0.02)

    theirs.upsert(["late"], base[:1], [{"user_id": "u"}])
    _caught_up(cache, 1)
    assert cache.reloads == 1 and cache.fetched_rows == 1  # the ids learnt after compaction held

    theirs.optimize()  # another process rewrites every row: one streamed whole load
    deadline = time.monotonic() + 15
    while cache.reloads < 2:
        assert time.monotonic() < deadline, "the copy never reloaded after a foreign compaction"
        cache.search(base[0], 1, lambda c: c["user_id"] == "u")
        time.sleep(0.05)
    everyone = cache.search(base[0], 500, lambda c: c["user_id"] == "u") or []
    assert len(everyone) == 201 and everyone[0].similarity > 0.999
