"""The exact copy's projected scan: only the rows best on the projections are scored in full."""

import numpy as np

from app.bootstrap import build_services
from app.core.settings import EmbeddingSettings, SearchSettings, Settings
from app.core.storage.vector_cache import Projection, VectorMatrixCache, _projected_best_scores
from app.core.storage.vectors import VectorStore
from tests.core.test_vector_cache import _clustered


def test_the_projected_scan_finds_the_exact_top_10_scoring_few_rows() -> None:
    rng = np.random.default_rng(5)
    matrix = _clustered(rng, 5000)
    projection = Projection.of(matrix, 16)
    keep = rng.random(5000) < 0.7
    recall = []
    for query in _clustered(rng, 40):
        rows, scores = _projected_best_scores(matrix, projection, query, keep, 200)
        assert len(rows) == 200 and keep[rows].all()  # 4 % of the rows, all inside the filter
        assert np.array_equal(scores, matrix[rows] @ query)  # the rows it keeps get their full score
        exact = matrix @ query
        exact[~keep] = -np.inf
        want = set(np.argsort(-exact)[:10])
        recall.append(len(want & set(rows[np.argsort(-scores)[:10]])) / 10)
    assert np.mean(recall) >= 0.98


def test_rows_with_the_same_vector_are_chosen_by_row_in_both_scans(tmp_path) -> None:
    rng = np.random.default_rng(9)
    vectors = _clustered(rng, 900, dims=32)
    vectors[100:160] = vectors[7]  # one sentence repeated 61 times: 61 exact ties
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",))
    keys = [f"k{i:04d}" for i in range(900)]
    collection.upsert(keys, vectors, [{"user_id": "u"}] * 900)
    everyone = lambda c: c["user_id"] == "u"  # noqa: E731
    caches = {
        rows: VectorMatrixCache(collection, project_min_rows=1, projected_dimensions=8, rescore_rows=rows)
        for rows in (0, 80)  # the exact bound, the projected scan
    }
    for query in (vectors[7], *_clustered(rng, 10, dims=32)):
        found = {rows: cache.search(query, 5, everyone) or [] for rows, cache in caches.items()}
        assert [h.key for h in found[0]] == [h.key for h in found[80]]
        assert np.allclose([h.similarity for h in found[0]], [h.similarity for h in found[80]], atol=1e-6)
    tied = [h.key for h in caches[80].search(vectors[7], 5, everyone) or []]
    assert tied == ["k0007", "k0100", "k0101", "k0102", "k0103"]  # the lowest rows of the tie


def test_the_setting_reaches_both_vector_copies(tmp_path) -> None:
    for rows in (0, 1000):
        settings = Settings(
            data_dir=tmp_path / str(rows),
            embedding=EmbeddingSettings(provider="hashing"),
            search=SearchSettings(vector_rescore_rows=rows),
        )
        services = build_services(settings)
        try:
            searcher = services.memory.searcher
            assert searcher.keys is not None
            for corpus in (searcher.corpus, searcher.keys):
                assert corpus.rescore_rows == rows and corpus.matrix().rescore_rows == rows
        finally:
            services.close()


def test_a_narrow_filter_scores_its_few_rows_exactly(tmp_path) -> None:
    rng = np.random.default_rng(11)
    vectors = _clustered(rng, 3000, dims=32)
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",))
    owners = ["few" if i % 20 == 0 else "many" for i in range(3000)]  # 150 rows pass the filter
    collection.upsert([f"k{i:04d}" for i in range(3000)], vectors, [{"user_id": o} for o in owners])
    cache = VectorMatrixCache(collection, project_min_rows=1, projected_dimensions=4, rescore_rows=200)
    for query in _clustered(rng, 10, dims=32):
        hits = cache.search(query, 10, lambda c: c["user_id"] == "few") or []
        exact = np.where(np.array(owners) == "few", vectors @ query, -np.inf)
        assert [h.key for h in hits] == [f"k{i:04d}" for i in np.argsort(-exact, kind="stable")[:10]]
