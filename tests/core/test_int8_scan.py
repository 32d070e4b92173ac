"""The projected scan's int8 first pass: the same rows as the float32 scan, codes kept in step."""

from __future__ import annotations

import numpy as np

from app.core.storage.int8_scan import approximate_scores, best_projected_rows, quantize
from app.core.storage.top_rows import top_rows
from app.core.storage.vector_cache import VectorMatrixCache
from app.core.storage.vector_rows import Projection
from app.core.storage.vectors import VectorStore
from tests.core.test_vector_cache import _clustered


def test_the_codes_score_rows_close_to_their_float_projections() -> None:
    rng = np.random.default_rng(3)
    rows = (rng.standard_normal((5_000, 64)) * np.linspace(0.4, 0.02, 64)).astype(np.float32)
    codes, scales = quantize(rows)
    assert codes.dtype == np.uint8 and scales.dtype == np.float32
    for _ in range(10):
        query = rng.standard_normal(64).astype(np.float32)
        exact, approx = rows @ query, approximate_scores(codes, scales, query)
        # a few thousandths of the scores' spread: the pool absorbs it
        assert np.abs(approx - exact).max() < 0.01 * exact.std() * 10
        assert np.corrcoef(approx, exact)[0, 1] > 0.999


def test_the_first_pass_picks_the_rows_the_float_scan_picks_with_the_same_scores() -> None:
    rng = np.random.default_rng(4)
    matrix = _clustered(rng, 30_002)  # not a multiple of four: the last rows are BLAS's remainder
    projection = Projection.of(matrix, 32)
    assert projection.codes is not None and projection.scales is not None
    keep = rng.random(len(matrix)) < 0.8
    for query in _clustered(rng, 20):
        pq = query @ projection.basis
        approx = projection.rows @ pq
        approx[~keep] = -np.inf
        want = top_rows(approx, 400)
        got = best_projected_rows(projection.rows, projection.codes, projection.scales, pq, keep, 400)
        assert got is not None and set(got.tolist()) == set(want.tolist())
        assert keep[got].all()
    # Too few rows kept for a pool: the caller scans the float projections.
    few = np.zeros(len(matrix), dtype=bool)
    few[:1000] = True
    assert best_projected_rows(projection.rows, projection.codes, projection.scales, pq, few, 400) is None


def test_appended_and_replaced_rows_get_their_codes(tmp_path) -> None:
    rng = np.random.default_rng(8)
    everything = _clustered(rng, 1_500, dims=32)  # one distribution: the basis fits the appends
    vectors, more = everything[:1_200], everything[1_200:]
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",))
    keys = [f"k{i:05d}" for i in range(1_200)]
    collection.upsert(keys, vectors, [{"user_id": "u"}] * 1_200)
    cache = VectorMatrixCache(collection, project_min_rows=1, projected_dimensions=8, rescore_rows=40)
    everyone = lambda c: c["user_id"] == "u"  # noqa: E731
    assert cache.search(vectors[0], 3, everyone)
    collection.upsert([f"n{i:05d}" for i in range(300)], more, [{"user_id": "u"}] * 300)
    collection.upsert(keys[:50], more[:50], [{"user_id": "u"}] * 50)  # replaced vectors
    hits = cache.search(more[123], 3, everyone)
    assert hits and hits[0].key == "n00123"
    rows = cache._rows
    assert rows is not None and rows.codes is not None and rows.code_scales is not None
    n = rows.size
    codes, scales = quantize(rows.projected[:n])
    assert np.array_equal(rows.codes[:n], codes) and np.array_equal(rows.code_scales[:n], scales)
