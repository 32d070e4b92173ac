"""Narrow filters at 1M: scaled probes against unbounded probing, the vector leg and whole searches.

Before, a prefilter keeping at most `ann.NARROW_MAX_ROWS` rows let LanceDB probe every partition
(`maximum_nprobes(0)`); now the probes grow with 1 / the rows it keeps (`app/core/index/narrow.py`).
Both are run in this process, interleaved query by query (the "before" arm forces unbounded
probing for the call), so the machine's load moves both alike:

1. the vector leg alone (`AnnIndex.search`, pool 30) per filter kind: process CPU p50 / p95 and
   Recall@10 / @30 against exact NumPy scores over every stored vector;
2. (`--whole`) the whole search (`memory.search`, limit 10, query-vector cache cleared before
   each search), without filters and with the five kinds in turn, in three arms: before (unbounded
   probing, each query text in its own model call), scaled probes, and scaled probes with a
   search's query texts in one model call (`app/core/search/query_vectors.py`): process CPU and
   wall p50 / p95, and how many top 10s are identical (ids) to the arm before.

    python tests/benchmarks/bench_narrow_filters.py --data-dir COPY-OF-locomo-bulk-1000000
        [--queries 98] [--whole] [--no-leg]

Needs a bulk-built archive (`bench_search.py --build bulk --workdir DIR`) and `../shared/data`
(the LoCoMo questions). Run it with `nice -n -20` on a shared machine and give the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sqlalchemy import text

from app.bootstrap import build_services
from app.core.domain import SearchFilters
from app.core.embeddings.factory import build_embedder
from app.core.index import ann as ann_module
from app.core.index.filters import to_mask
from app.core.search import query_vectors
from app.core.search.message_query import MessageQuery, message_filter
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.vectors import arrow_column
from tests.benchmarks import locomo_corpus, locomo_data
from tests.benchmarks.bench_search import percentile
from tests.benchmarks.bench_search_timeline import clear_query_cache

DAY_MS = 86_400_000


def filter_kinds(newest: int) -> dict[str, SearchFilters]:
    """The bench archive's channels hold ~8,400 rows each, people ~34,000 (3.4 %)."""
    return {
        "one channel": SearchFilters(channels=("group-3",)),
        "two channels": SearchFilters(channels=("group-3", "team-7")),
        "a person": SearchFilters(persons=("Caroline",)),
        "channel, 2 years": SearchFilters(channels=("group-3",), since=newest - 2 * 365 * DAY_MS),
        "channel, 60 days": SearchFilters(channels=("group-3",), since=newest - 60 * DAY_MS),
    }


def unbounded(call: Callable[[], Any]) -> Any:
    """`call` with every narrow prefilter probing all partitions (the path before)."""
    real = ann_module.narrow_probes
    ann_module.narrow_probes = lambda *args, **kwargs: 0
    try:
        return call()
    finally:
        ann_module.narrow_probes = real


def vector_leg(services: Any, vectors: list[np.ndarray], kinds: dict[str, SearchFilters]) -> None:
    corpus = services.processor.corpus
    collection, ann = corpus.collection, corpus.ann()
    data = collection.table.to_arrow()
    keys = data.column("key").to_numpy(zero_copy_only=False)
    matrix = np.asarray(data.column("vector").combine_chunks().flatten(), dtype=np.float32).reshape(
        len(data), -1
    )
    columns = {c: arrow_column(data.column(c)) for c in collection.columns}
    del data
    print("| filter (rows kept) | arm | CPU p50 / p95 | Recall@10 / @30 | load |\n|---|---|---:|---:|---:|")
    for label, filters in kinds.items():
        where = message_filter(MessageQuery("x", filters, 10, "local"))
        mask = to_mask(where, columns, len(keys))
        truth = []
        for v in vectors:
            scores = matrix @ v
            scores[~mask] = -np.inf
            top = np.argsort(-scores)[:30]
            truth.append((set(keys[top[:10]]), set(keys[top[:30]])))
        arms = {
            "before (unbounded)": lambda v, w=where: unbounded(lambda: ann.search(v, 30, w)),
            "scaled probes": lambda v, w=where: ann.search(v, 30, w),
        }
        cpu: dict[str, list[float]] = {a: [] for a in arms}
        r10: dict[str, list[float]] = {a: [] for a in arms}
        r30: dict[str, list[float]] = {a: [] for a in arms}
        for n, v in enumerate(vectors):
            for arm in list(arms) if n % 2 else list(arms)[::-1]:
                started = time.process_time()
                got = [h.key for h in arms[arm](v)]
                cpu[arm].append((time.process_time() - started) * 1000)
                r10[arm].append(len(set(got[:10]) & truth[n][0]) / 10)
                r30[arm].append(len(set(got) & truth[n][1]) / 30)
        for arm in arms:
            print(
                f"| {label} ({int(mask.sum()):,}) | {arm} | {statistics.median(cpu[arm]):.1f} / "
                f"{percentile(cpu[arm], 0.95):.1f} ms | {np.mean(r10[arm]):.3f} / {np.mean(r30[arm]):.3f} | "
                f"{os.getloadavg()[0]:.1f} |",
                flush=True,
            )
    del matrix


def one_call_per_text(call: Callable[[], Any]) -> Any:
    """`call` with each query text embedded in its own model call (the path before)."""
    real = query_vectors.batched
    query_vectors.batched = lambda embedder: None
    try:
        return call()
    finally:
        query_vectors.batched = real


def whole(services: Any, queries: list[str], kinds: dict[str, SearchFilters]) -> None:
    """Whole searches: before (unbounded, one call per text), scaled probes only, and both."""
    embedder = services.memory.searcher.embedder

    def search(q: str, f: SearchFilters) -> list[str]:
        return [h.id for h in services.memory.search(q, f, limit=10)]

    arms: dict[str, Callable[[str, SearchFilters], list[str]]] = {
        "before": lambda q, f: unbounded(lambda: one_call_per_text(lambda: search(q, f))),
        "scaled probes": lambda q, f: one_call_per_text(lambda: search(q, f)),
        "scaled probes + one embedding call": search,
    }
    print("| filters | arm | CPU p50 / p95 | wall p50 / p95 | top 10 identical to before | load |")
    print("|---|---|---:|---:|---:|---:|")
    for label, chosen in (("none", [SearchFilters()]), ("the five kinds in turn", list(kinds.values()))):
        cpu: dict[str, list[float]] = {a: [] for a in arms}
        wall: dict[str, list[float]] = {a: [] for a in arms}
        same = dict.fromkeys(arms, 0)
        for n, q in enumerate(queries):
            found = {}
            order = list(arms)[n % 3 :] + list(arms)[: n % 3]
            for arm in order:
                clear_query_cache(embedder)
                started, cpu_started = time.perf_counter(), time.process_time()
                found[arm] = arms[arm](q, chosen[n % len(chosen)])
                wall[arm].append((time.perf_counter() - started) * 1000)
                cpu[arm].append((time.process_time() - cpu_started) * 1000)
            for arm in arms:
                same[arm] += found[arm] == found["before"]
        for arm in arms:
            cpu50, cpu95 = statistics.median(cpu[arm]), percentile(cpu[arm], 0.95)
            print(
                f"| {label} | {arm} | {cpu50:.1f} / {cpu95:.1f} ms | "
                f"{statistics.median(wall[arm]):.1f} / {percentile(wall[arm], 0.95):.1f} ms | "
                f"{same[arm]} of {len(queries)} | {os.getloadavg()[0]:.1f} |",
                flush=True,
            )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=98)
    parser.add_argument("--whole", action="store_true", help="also whole searches, the arms interleaved")
    parser.add_argument("--no-leg", action="store_true", help="skip the vector leg alone")
    args = parser.parse_args()
    if not locomo_corpus.available():
        print(f"skipped: {locomo_data.DATA} is missing")
        return 0
    settings = Settings(data_dir=args.data_dir, embedding=EmbeddingSettings(provider="local"))
    services = build_services(settings, embedder=build_embedder(settings.embedding))
    queries = locomo_corpus.queries(98)[: args.queries]
    with services.db.read() as session:
        newest = int(session.execute(text("SELECT max(timestamp) FROM raw_messages")).scalar_one() or 0)
    kinds = filter_kinds(newest)
    for n, q in enumerate(queries[:12]):
        services.memory.search(q + " warmup", list(kinds.values())[n % len(kinds)], limit=10)
    print(f"load {os.getloadavg()[0]:.1f}")
    if not args.no_leg:
        vector_leg(services, [services.embedder.embed_query(q) for q in queries], kinds)
    if args.whole:
        whole(services, queries, kinds)
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
