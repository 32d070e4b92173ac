"""The IVF leg at 1M on the app's own vector table: partitions, probes and refine against recall.

Works on a COPY of an archive's `vectors.lance` directory (never the original): `--build N`
trains an IVF_SQ index of N partitions on it (replacing the copy's index; build time printed),
then LoCoMo questions are searched as the app's vector leg does (pool 30, cosine, the broad
terms checked after) at each `--probes` value, and compared with exact NumPy scores over every
vector: Recall@10 and Recall@30, wall and CPU time per search (median), with and without a
prefilter (`platform = 'slack'`, a third of the rows).

    python tests/benchmarks/bench_ann_partitions.py --lance COPY/vectors.lance [--build 1000]
        [--probes 20,40,80] [--refine 2] [--queries 98]

Needs `../shared/data` (LoCoMo). Exact scores need ~1.6 GB of memory at 1M rows.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.embeddings.factory import build_embedder
from app.core.settings import EmbeddingSettings
from tests.benchmarks import locomo_corpus

TABLE_PREFIX = "messages__"
POOL = 30
FILTER = "platform = 'slack'"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lance", type=Path, required=True, help="a COPY of an archive's vectors.lance")
    parser.add_argument("--build", type=int, default=0, help="train IVF_SQ with this many partitions first")
    parser.add_argument("--probes", default="20,40,80")
    parser.add_argument("--refine", type=int, default=2, help="refine factor (0: none)")
    parser.add_argument("--queries", type=int, default=98)
    args = parser.parse_args()
    if not locomo_corpus.available():
        print("skipped: ../shared/data is missing")
        return 0
    db = lancedb.connect(str(args.lance))
    name = next(n for n in db.list_tables().tables if n.startswith(TABLE_PREFIX))
    table = db.open_table(name)
    if args.build:
        from lancedb.index import IvfSq

        started, cpu = time.perf_counter(), time.process_time()
        config = IvfSq(distance_type="cosine", num_partitions=args.build, max_iterations=20)
        table.create_index("vector", config=config, name="vector_idx", replace=True)
        print(
            f"built IVF_SQ, {args.build} partitions, over {table.count_rows():,} rows in "
            f"{time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU "
            f"(load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    stats = table.index_stats("vector_idx")
    print(f"index: {stats.index_type}, load {os.getloadavg()[0]:.1f}")
    embedder = build_embedder(EmbeddingSettings())
    queries = np.stack([embedder.embed_query(q) for q in locomo_corpus.queries(98)[: args.queries]]).astype(
        np.float32
    )
    data = table.to_arrow().select(["key", "vector", "platform", "archived"])
    keys = np.asarray(data.column("key").to_pylist())
    flat = data.column("vector").combine_chunks().flatten()
    matrix = np.asarray(flat, dtype=np.float32).reshape(len(keys), -1)
    slack = np.asarray(data.column("platform").to_pylist()) == "slack"
    alive = ~np.asarray(data.column("archived").to_pylist(), dtype=bool)
    del data
    exact = {}
    for label, mask in (("no filter", alive), ("slack", alive & slack)):
        truth = []
        for q in queries:
            scores = matrix @ q
            scores[~mask] = -np.inf
            top = np.argpartition(-scores, POOL)[:POOL]
            truth.append(keys[top[np.argsort(-scores[top])]])
        exact[label] = truth
    del matrix
    for probes in (int(p) for p in args.probes.split(",")):
        for label, where in (("no filter", None), ("slack", FILTER)):
            r10 = r30 = 0.0
            walls, cpus = [], []
            for n, q in enumerate(queries):
                started, cpu = time.perf_counter(), time.process_time()
                search = table.search(q).distance_type("cosine").limit(POOL + 5).nprobes(probes)
                if args.refine:
                    search = search.refine_factor(args.refine)
                if where:
                    search = search.where(where, prefilter=True)
                got = search.select(["key", "_distance", "archived"]).to_arrow()
                walls.append((time.perf_counter() - started) * 1000)
                cpus.append((time.process_time() - cpu) * 1000)
                pairs = zip(got.column("key").to_pylist(), got.column("archived").to_pylist(), strict=True)
                found = [k for k, archived in pairs if not archived][:POOL]
                truth = exact[label][n]
                r10 += len(set(found[:10]) & set(truth[:10])) / 10
                r30 += len(set(found) & set(truth)) / POOL
            print(
                f"  probes {probes:4d}, refine {args.refine}, {label:9s}: "
                f"Recall@10 {r10 / len(queries):.3f}, "
                f"Recall@30 {r30 / len(queries):.3f}; wall p50 {statistics.median(walls):.1f} ms, "
                f"CPU p50 {statistics.median(cpus):.1f} ms (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
