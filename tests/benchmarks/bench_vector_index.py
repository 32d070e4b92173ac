"""LanceDB's approximate index types compared on recycled real vectors: build time, latency, recall.

    python tests/benchmarks/bench_vector_index.py [--rows 1000000] [--types IVF_SQ,IVF_PQ,IVF_HNSW_SQ]
        [--workdir DIR] [--queries 100]

A table of `--rows` vectors is written once into `--workdir` (real MiniLM vectors of 3,000
LoCoMo-grown texts plus small noise, as `scale_corpus.py` writes them; 5 % archived, three
platforms); each index type is then built on it (the previous one dropped), and LoCoMo questions
are searched with and without a prefilter at two (probes, refine) settings. Recall@10 is against
exact NumPy scores over every vector. This is what chose IVF_SQ for `app/core/index/ann.py`.
Needs `../shared/data` (LoCoMo).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.embeddings.factory import build_embedder
from app.core.settings import EmbeddingSettings
from tests.benchmarks import locomo_corpus, scale_corpus

FILTER = "archived = false AND platform = 'slack' AND user_id = 'local'"


def table(workdir: Path, rows: int) -> tuple[object, np.ndarray, np.ndarray]:
    real = build_embedder(EmbeddingSettings())
    pool = scale_corpus.pool_vectors(real, workdir)
    queries = np.stack([real.embed_query(q) for q in locomo_corpus.queries(200)])
    db = lancedb.connect(str(workdir / f"index-bench-{rows}"))
    matrix_file = workdir / f"index-bench-{rows}.npy"
    if "t" in db.list_tables().tables and matrix_file.exists():
        return db.open_table("t"), np.load(matrix_file), queries
    rng = np.random.default_rng(1)
    parts = []
    for start in range(0, rows, 100_000):
        n = min(100_000, rows - start)
        v = pool[rng.integers(0, len(pool), n)] + rng.normal(0, scale_corpus.NOISE, (n, pool.shape[1]))
        v = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
        parts.append(v)
        ids = np.arange(start, start + n)
        batch = pa.table(
            {
                "key": [str(i) for i in ids],
                "user_id": ["local"] * n,
                "archived": ids % 20 == 0,
                "platform": np.array(["slack", "discord", "telegram"])[ids % 3],
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(v.ravel()), pool.shape[1]),
            }
        )
        if start == 0:
            t = db.create_table("t", batch, mode="overwrite")
        else:
            t.add(batch)
    matrix = np.concatenate(parts)
    np.save(matrix_file, matrix)
    return t, matrix, queries


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--types", default="IVF_SQ,IVF_PQ,IVF_HNSW_SQ")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/strata-bench-vector-index"))
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    if not locomo_corpus.available():
        print("skipped: ../shared/data (LoCoMo) is missing")
        return 0
    from lancedb.index import Bitmap, HnswSq, IvfPq, IvfSq

    args.workdir.mkdir(parents=True, exist_ok=True)
    t, matrix, queries = table(args.workdir, args.rows)
    queries = queries[: args.queries]
    ids = np.arange(len(matrix))
    allowed = (ids % 20 != 0) & (ids % 3 == 0)
    exact, exact_filtered = [], []
    for q in queries:
        scores = matrix @ q
        exact.append(set(np.argpartition(-scores, 10)[:10]))
        scores[~allowed] = -np.inf
        exact_filtered.append(set(np.argpartition(-scores, 10)[:10]))
    for column in ("archived", "platform", "user_id"):
        if not any(ix.columns == [column] for ix in t.list_indices()):
            t.create_index(column, config=Bitmap())
    partitions = max(16, args.rows // 4000)
    configs = {
        "IVF_SQ": lambda: IvfSq(distance_type="cosine", num_partitions=partitions, max_iterations=20),
        "IVF_PQ": lambda: IvfPq(
            distance_type="cosine", num_partitions=partitions, num_sub_vectors=48, max_iterations=20
        ),
        "IVF_HNSW_SQ": lambda: HnswSq(distance_type="cosine", num_partitions=max(1, args.rows // 100_000)),
    }
    for kind in args.types.split(","):
        for ix in list(t.list_indices()):
            if ix.columns == ["vector"]:
                t.drop_index(ix.name)
        started = time.perf_counter()
        t.create_index("vector", config=configs[kind]())
        built = time.perf_counter() - started
        for nprobes, refine in ((20, 5), (40, 10)):
            for filtered in (False, True):
                latencies, recall = [], []
                for i, q in enumerate(queries):
                    started = time.perf_counter()
                    query = (
                        t.search(q).distance_type("cosine").limit(30).nprobes(nprobes).refine_factor(refine)
                    )
                    if filtered:
                        query = query.where(FILTER, prefilter=True)
                    keys = query.select(["key", "_distance"]).to_arrow().column("key").to_pylist()[:10]
                    latencies.append((time.perf_counter() - started) * 1000)
                    want = (exact_filtered if filtered else exact)[i]
                    recall.append(len({int(k) for k in keys} & want) / 10)
                label = "prefiltered" if filtered else "no filter"
                p50, p95 = statistics.median(latencies), sorted(latencies)[int(0.95 * len(latencies))]
                print(
                    f"{kind} ({args.rows:,} rows) built in {built:.0f}s; probes {nprobes} refine {refine} "
                    f"{label}: p50 {p50:.1f} ms p95 {p95:.1f} ms Recall@10 {np.mean(recall):.3f} "
                    f"(load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
