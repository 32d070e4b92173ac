"""Could LanceDB's refine be dropped once the vector file serves? The ANN leg both ways, interleaved.

    python tests/benchmarks/bench_vector_file_refine.py --data-dir COPY-OF-locomo-bulk-1000000

"refine": today's leg (`AnnIndex.search`: 80 probes, LanceDB re-scores 2 × the pool from its
stored vectors). "file": the same probes without LanceDB's refine, asking for 2 × the pool by the
index's 8-bit distances, re-scored exactly from the vector file (`vectors_of`), best pool kept.
98 LoCoMo questions, pool 30, no filter: process CPU p50 / p95 and how many pools are identical
(keys and order). Measurement only: the ANN leg belongs to `faiss1m`. Give the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.embeddings.factory import build_embedder
from app.core.index import ann
from app.core.index.filters import Filter
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks import locomo_corpus, locomo_data
from tests.benchmarks.bench_search import percentile

POOL = 30


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=98)
    args = parser.parse_args()
    if not locomo_corpus.available():
        print(f"skipped: {locomo_data.DATA} is missing")
        return 0
    settings = Settings(data_dir=args.data_dir, embedding=EmbeddingSettings(provider="local"))
    services = build_services(settings, embedder=build_embedder(settings.embedding))
    corpus = services.memory.searcher.corpus
    collection = corpus.collection
    index = corpus.ann()
    vectors = [services.embedder.embed_query(q) for q in locomo_corpus.queries(98)[: args.queries]]
    nprobes = ann.COARSE_NPROBES if index.vector_index() == ann.COARSE_INDEX else ann.NPROBES

    def refined(v: np.ndarray) -> list[str]:
        return [h.key for h in index.search(v, POOL, Filter(()))]

    def from_file(v: np.ndarray) -> list[str]:
        found = collection.search(v, 2 * POOL, Filter(()), nprobes=nprobes)  # no refine
        stored = collection.vectors_of([h.key for h in found])
        q = v.astype(np.float32)
        scores = sorted(((-float(stored[k] @ q), k) for k in stored), key=lambda s: s)
        return [k for _, k in scores[:POOL]]

    for v in vectors[:5]:
        refined(v), from_file(v)
    cpu: dict[str, list[float]] = {"refine": [], "file": []}
    same = 0
    for n, v in enumerate(vectors):
        got = {}
        for arm in ("refine", "file") if n % 2 == 0 else ("file", "refine"):
            started = time.process_time()
            got[arm] = refined(v) if arm == "refine" else from_file(v)
            cpu[arm].append((time.process_time() - started) * 1000)
        same += got["refine"] == got["file"]
    load = os.getloadavg()[0]
    print(f"ANN leg, pool {POOL}, {nprobes} probes, {len(vectors)} questions (load {load:.1f}):")
    for arm, times in cpu.items():
        print(f"  {arm:7s} CPU p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 0.95):.1f} ms")
    print(f"  identical pools (keys and order): {same} of {len(vectors)}")
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
