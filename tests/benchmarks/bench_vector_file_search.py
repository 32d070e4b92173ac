"""Whole 1M searches with the stored vectors from the memory-mapped file and from LanceDB, interleaved.

    python tests/benchmarks/bench_vector_file_search.py --data-dir COPY-OF-locomo-bulk-1000000
        [--queries 98]

Both arms run in this process query by query, their order alternated, the query-vector cache
cleared before each search: "lancedb" reads the windows' and keyword candidates' vectors with a
LanceDB take (the path before), "file" from the messages' vector file (built first if missing:
`vector_file_build`). Without filters and with fast1m4's five filter kinds in turn: process CPU
and wall p50 / p95, and how many top 10s (ids) are identical between the arms (the same vectors
are read, so all should be). Needs `../shared/data` (the LoCoMo questions). Give the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sqlalchemy import text

from app.bootstrap import build_services
from app.core.domain import SearchFilters
from app.core.embeddings.factory import build_embedder
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage import vector_file_build
from tests.benchmarks import locomo_corpus, locomo_data
from tests.benchmarks.bench_narrow_filters import filter_kinds
from tests.benchmarks.bench_search import percentile
from tests.benchmarks.bench_search_timeline import clear_query_cache


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
    collection = services.memory.searcher.corpus.collection
    stored = collection.file
    if stored is None:
        print("vector files are off (search.vector_file_min_rows = 0)")
        return 1
    if not stored.path.exists():
        report = vector_file_build.build(
            collection.table, collection.path, stored.path.parent, collection.name, collection.dimensions
        )
        print(f"built the vector file: {report}")
    queries = locomo_corpus.queries(98)[: args.queries]
    with services.db.read() as session:
        newest = int(session.execute(text("SELECT max(timestamp) FROM raw_messages")).scalar_one() or 0)
    kinds = filter_kinds(newest)
    embedder = services.memory.searcher.embedder
    for n, q in enumerate(queries[:12]):
        services.memory.search(q + " warmup", list(kinds.values())[n % len(kinds)], limit=10)
    print(f"load {os.getloadavg()[0]:.1f}")
    arms = ("lancedb", "file")
    print("| filters | arm | CPU p50 / p95 | wall p50 / p95 | identical top 10 | load |")
    print("|---|---|---:|---:|---:|---:|")
    for label, chosen in (("none", [SearchFilters()]), ("the five kinds in turn", list(kinds.values()))):
        cpu: dict[str, list[float]] = {a: [] for a in arms}
        wall: dict[str, list[float]] = {a: [] for a in arms}
        same = 0
        for n, q in enumerate(queries):
            found = {}
            for arm in arms if n % 2 == 0 else arms[::-1]:
                collection.file = stored if arm == "file" else None
                clear_query_cache(embedder)
                started, cpu_started = time.perf_counter(), time.process_time()
                found[arm] = [h.id for h in services.memory.search(q, chosen[n % len(chosen)], limit=10)]
                wall[arm].append((time.perf_counter() - started) * 1000)
                cpu[arm].append((time.process_time() - cpu_started) * 1000)
            same += found["file"] == found["lancedb"]
        for arm in arms:
            cpu50, cpu95 = statistics.median(cpu[arm]), percentile(cpu[arm], 0.95)
            print(
                f"| {label} | {arm} | {cpu50:.1f} / {cpu95:.1f} ms | "
                f"{statistics.median(wall[arm]):.1f} / {percentile(wall[arm], 0.95):.1f} ms | "
                f"{same} of {len(queries)} | {os.getloadavg()[0]:.1f} |",
                flush=True,
            )
    collection.file = stored
    print(f"vectors served from the file: {stored.served:,}")
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
