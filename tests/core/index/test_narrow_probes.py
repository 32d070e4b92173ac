"""Narrow prefilters on the approximate index: probes grow with 1 / the rows kept, answers stay."""

import numpy as np
import pytest

from app.core.index import ann as ann_module
from app.core.index.ann import AnnIndex
from app.core.index.filters import Between, Eq, Filter, OneOf
from app.core.index.narrow import narrow_probes
from app.core.storage.vectors import VectorStore

ROWS = 6000


def test_probes_grow_as_the_filter_narrows_and_reach_every_partition_unbounded() -> None:
    def probes(kept: float) -> int:
        return narrow_probes(kept, 1000, probes=80, narrow_max_rows=30_000)

    assert probes(30_000) == 80
    assert probes(16_755) == 144  # two channels of the 1M bench archive
    assert probes(8_447) == 285  # one channel
    assert probes(2_400) == 0 and probes(93) == 0 and probes(0) == 0  # every partition: unbounded
    assert narrow_probes(5_000, 16, probes=8, narrow_max_rows=3_000) == 8  # never fewer than unfiltered


@pytest.fixture
def indexed(tmp_path, monkeypatch):
    """6,000 clustered rows in ~120 partitions of 50, probed 8 at a time; narrow below 3,000 rows:
    the 1M archive's proportions, small enough for a test."""
    monkeypatch.setattr(ann_module, "PARTITION_ROWS", 50)
    monkeypatch.setattr(ann_module, "NPROBES", 8)
    monkeypatch.setattr(ann_module, "NARROW_MAX_ROWS", 3_000)
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(60, 32))
    vectors = centres[rng.integers(0, 60, ROWS)] + rng.normal(0, 0.5, size=(ROWS, 32))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id", "channel", "timestamp"))
    # Channel i % 20 (300 rows each), timestamps in row order.
    rows = [{"user_id": "u", "channel": f"c{i % 20}", "timestamp": i} for i in range(ROWS)]
    collection.upsert([f"k{i}" for i in range(ROWS)], vectors, rows)
    ann = AnnIndex(collection, min_rows=1000)
    assert ann.maintain().action == "build"
    return ann, vectors, rng


def _exact(vectors: np.ndarray, query: np.ndarray, allowed: np.ndarray, k: int) -> list[str]:
    scores = vectors @ query
    scores[~allowed] = -np.inf
    return [f"k{i}" for i in np.argsort(-scores)[:k] if np.isfinite(scores[i])]


def test_narrow_filters_find_what_unbounded_probing_finds(indexed, monkeypatch) -> None:
    ann, vectors, rng = indexed
    index = np.arange(ROWS)
    channel = index % 20
    cases = {
        # kept 2,700 of 6,000 (9 channels): 9 probes of ~120, bounded.
        "nine channels": (Filter((OneOf("channel", tuple(f"c{c}" for c in range(9))),)), channel < 9),
        # kept 1,500: 16 probes, bounded.
        "five channels": (Filter((OneOf("channel", tuple(f"c{c}" for c in range(5))),)), channel < 5),
        # kept 300: the scaled probes would reach every partition: unbounded.
        "one channel": (Filter((Eq("channel", "c3"),)), channel == 3),
        # Two related terms: estimated 1,350 rows (9 channels × 50 %), counted 0 + 90 rows.
        "related terms": (
            Filter((OneOf("channel", tuple(f"c{c}" for c in range(9))), Between("timestamp", 5_800, None))),
            (channel < 9) & (index >= 5_800),
        ),
    }
    assert ann.kept_rows(cases["related terms"][0]) == 90  # counted, not the product of shares
    real = ann_module.narrow_probes
    queries = vectors[rng.integers(0, ROWS, 20)] + rng.normal(0, 0.1, size=(20, 32)).astype(np.float32)
    for name, (where, allowed) in cases.items():
        scaled = [[h.key for h in ann.search(q, 10, where)] for q in queries]
        # The same searches with unbounded probing (how every narrow filter was searched before).
        monkeypatch.setattr(ann_module, "narrow_probes", lambda *a, **k: 0)
        unbounded = [[h.key for h in ann.search(q, 10, where)] for q in queries]
        monkeypatch.setattr(ann_module, "narrow_probes", real)
        for hits in scaled:
            assert all(allowed[int(k[1:])] for k in hits), name  # the prefilter holds
        exact = [_exact(vectors, q, allowed, 10) for q in queries]
        agree = np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(scaled, unbounded, strict=True)])
        recall = np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(scaled, exact, strict=True)])
        before = np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(unbounded, exact, strict=True)])
        assert agree >= 0.95 and recall >= before - 0.03, (name, agree, recall, before)
        if name in ("one channel", "related terms"):  # unbounded either way: the same answers
            assert scaled == unbounded, name
