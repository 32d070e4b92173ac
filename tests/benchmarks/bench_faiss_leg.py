"""The faiss vector leg at 1M against LanceDB's: build, disk, RSS, leg CPU and recall, whole searches.

On a COPY of a bulk-built archive (`locomo-bulk-1000000`), with `search.vector_engine = "faiss"`:
1. builds the faiss index the way the background job does (`Corpus.maintain_faiss`): wall, CPU,
   disk, RSS after opening it;
2. the vector leg alone, 98 LoCoMo questions, pool 30, by filter (none / slack / a date range /
   one channel / a person), arms interleaved in one process: LanceDB's `AnnIndex.search`; the
   faiss leg re-scoring through `VectorCollection.vectors_of` (today: a LanceDB take); the faiss
   leg re-scoring from a float32 memory map of the vectors (bench only: what `vecfile`'s
   memory-mapped `vectors_of` would give). CPU p50 / p95 and Recall@10 / @30 against exact
   NumPy over the filter's rows;
3. (`--whole`) whole searches (`memory.search`, limit 10, query cache cleared) with each engine
   in turn: CPU p50 / p95, identical top 10s, and with `--exact` how often each agrees with the
   same search whose leg is answered exactly.

    python tests/benchmarks/bench_faiss_leg.py --data-dir COPY [--queries 98] [--whole] [--exact]
        [--nprobe 80] [--no-leg]

Needs `faiss-cpu` and `../shared/data`; peak ~4.5 GB (the exact copy and its float32 dump).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.domain import SearchFilters
from app.core.embeddings.factory import build_embedder
from app.core.index.filters import Filter, to_mask
from app.core.search.message_query import MessageQuery, message_filter
from app.core.settings import EmbeddingSettings, SearchSettings, Settings
from app.core.storage.vectors import VectorHit, arrow_column
from tests.benchmarks import locomo_corpus
from tests.benchmarks.bench_search import percentile
from tests.benchmarks.bench_search_timeline import clear_query_cache

DAY_MS = 86_400_000


def rss() -> tuple[float, float]:
    """(RSS, anonymous RSS) in MB, from /proc."""
    fields = dict(
        line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields.get("RssAnon", "0 kB").split()[0]) / 1024


def kinds(newest: int) -> dict[str, SearchFilters]:
    return {
        "none": SearchFilters(),
        "slack": SearchFilters(platforms=("slack",)),
        "date range": SearchFilters(since=newest - 400 * DAY_MS, until=newest - 300 * DAY_MS),
        "one channel": SearchFilters(channels=("group-3",)),
        "a person": SearchFilters(persons=("Caroline",)),
    }


class Exact:
    """Every vector and column of the table in memory, and a float32 dump of the vectors mapped."""

    def __init__(self, collection: Any, dump: Path) -> None:
        data = collection.table.to_arrow()
        self.keys = data.column("key").to_numpy(zero_copy_only=False)
        self.matrix = np.asarray(data.column("vector").combine_chunks().flatten(), dtype=np.float32).reshape(
            len(data), -1
        )
        self.columns = {c: arrow_column(data.column(c)) for c in collection.columns}
        del data
        np.save(dump, self.matrix)
        self.mapped = np.load(dump, mmap_mode="r")
        ints = self.keys.astype(np.int64)
        self.slots = np.full(int(ints.max()) + 1, -1, np.int64)
        self.slots[ints] = np.arange(len(ints))

    def vectors_of(self, keys: Any) -> dict[str, np.ndarray]:
        """`vectors_of` from the float32 memory map (what a memory-mapped vector file would give)."""
        at = self.slots[np.asarray([int(k) for k in keys], np.int64)]
        rows = self.mapped[np.sort(at[at >= 0])]
        return {str(self.keys[i]): rows[n] for n, i in enumerate(np.sort(at[at >= 0]))}

    def search(self, vector: np.ndarray, limit: int, where: Filter) -> list[VectorHit]:
        scores = self.matrix @ vector.astype(np.float32)
        if where.terms:
            scores[~to_mask(where, self.columns, len(self.keys))] = -np.inf
        top = np.argpartition(-scores, limit)[:limit]
        top = top[np.argsort(-scores[top])]
        return [VectorHit(str(self.keys[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]


def leg(services: Any, exact: Exact, vectors: list[np.ndarray], filters: dict[str, SearchFilters]) -> None:
    corpus = services.processor.corpus
    collection, ann, faiss = corpus.collection, corpus.ann(), corpus.faiss()
    real = collection.vectors_of

    def mapped(v: np.ndarray, w: Filter) -> list[VectorHit]:
        collection.vectors_of = exact.vectors_of  # type: ignore[method-assign]
        try:
            return faiss.search(v, 30, w) or []
        finally:
            collection.vectors_of = real  # type: ignore[method-assign]

    arms: dict[str, Callable[[np.ndarray, Filter], list[VectorHit]]] = {
        "LanceDB IVF_SQ (80 probes, refine 2)": lambda v, w: ann.search(v, 30, w),
        "faiss, re-scored by vectors_of": lambda v, w: faiss.search(v, 30, w) or [],
        "faiss, re-scored from a float32 map": mapped,
    }
    print("| filter (rows kept) | arm | CPU p50 / p95 | Recall@10 / @30 | load |\n|---|---|---:|---:|---:|")
    for label, f in filters.items():
        where = message_filter(MessageQuery("x", f, 10, "local"))
        mask = to_mask(where, exact.columns, len(exact.keys))
        truth = [
            (set(k[:10]), set(k)) for k in ([h.key for h in exact.search(v, 30, where)] for v in vectors)
        ]
        for v in vectors[:3]:  # warm the filter's caches
            for call in arms.values():
                call(v, where)
        cpu: dict[str, list[float]] = {a: [] for a in arms}
        r10: dict[str, list[float]] = {a: [] for a in arms}
        r30: dict[str, list[float]] = {a: [] for a in arms}
        for n, v in enumerate(vectors):
            order = list(arms)[n % 3 :] + list(arms)[: n % 3]
            for arm in order:
                started = time.process_time()
                got = [h.key for h in arms[arm](v, where)]
                cpu[arm].append((time.process_time() - started) * 1000)
                r10[arm].append(len(set(got[:10]) & truth[n][0]) / max(1, len(truth[n][0])))
                r30[arm].append(len(set(got) & truth[n][1]) / max(1, len(truth[n][1])))
        for arm in arms:
            print(
                f"| {label} ({int(mask.sum()):,}) | {arm} | {statistics.median(cpu[arm]):.1f} / "
                f"{percentile(cpu[arm], 0.95):.1f} ms | {np.mean(r10[arm]):.3f} / {np.mean(r30[arm]):.3f} | "
                f"{os.getloadavg()[0]:.1f} |",
                flush=True,
            )


def whole(services: Any, exact: Exact | None, queries: list[str], filters: dict[str, SearchFilters]) -> None:
    corpus = services.processor.corpus
    embedder = services.memory.searcher.embedder
    ann = corpus.ann()
    print(
        "| filters | engine | CPU p50 / p95 | wall p50 / p95 | identical top 10 (engines) "
        "| identical to exact leg | load |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    chosen_sets = (
        ("none", [filters["none"]]),
        ("four kinds in turn", [f for k, f in filters.items() if k != "none"]),
    )
    for label, chosen in chosen_sets:
        cpu: dict[str, list[float]] = {"lancedb": [], "faiss": []}
        wall: dict[str, list[float]] = {"lancedb": [], "faiss": []}
        agree = {"lancedb": 0, "faiss": 0}
        same = 0
        for n, q in enumerate(queries):
            f = chosen[n % len(chosen)]
            tops: dict[str, list[str]] = {}
            for engine in ("lancedb", "faiss") if n % 2 == 0 else ("faiss", "lancedb"):
                corpus.vector_engine = engine
                clear_query_cache(embedder)
                started, cpu_started = time.perf_counter(), time.process_time()
                tops[engine] = [h.id for h in services.memory.search(q, f, limit=10)]
                wall[engine].append((time.perf_counter() - started) * 1000)
                cpu[engine].append((time.process_time() - cpu_started) * 1000)
            same += tops["lancedb"] == tops["faiss"]
            if exact is not None:
                corpus.vector_engine = "lancedb"
                real = ann.search
                ann.search = exact.search  # type: ignore[method-assign]
                try:
                    want = [h.id for h in services.memory.search(q, f, limit=10)]
                finally:
                    ann.search = real  # type: ignore[method-assign]
                for engine in agree:
                    agree[engine] += tops[engine] == want
        for engine in ("lancedb", "faiss"):
            print(
                f"| {label} | {engine} | {statistics.median(cpu[engine]):.1f} / "
                f"{percentile(cpu[engine], 0.95):.1f} ms | "
                f"{statistics.median(wall[engine]):.1f} / {percentile(wall[engine], 0.95):.1f} ms | "
                f"{same} of {len(queries)} | "
                f"{agree[engine] if exact is not None else '-'} of {len(queries)} | "
                f"{os.getloadavg()[0]:.1f} |",
                flush=True,
            )
    corpus.vector_engine = "faiss"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True, help="a COPY of the 1M archive")
    parser.add_argument("--queries", type=int, default=98)
    parser.add_argument("--whole", action="store_true")
    parser.add_argument("--exact", action="store_true", help="whole searches: agreement with the exact leg")
    parser.add_argument("--no-leg", action="store_true")
    parser.add_argument("--nprobe", type=int, default=0, help="the faiss leg's probes (0: faiss_leg.NPROBE)")
    args = parser.parse_args()
    try:
        import faiss  # noqa: F401
    except ImportError:
        print("skipped: needs faiss-cpu")
        return 0
    if not locomo_corpus.available():
        print("skipped: needs ../shared/data")
        return 0
    settings = Settings(
        data_dir=args.data_dir,
        embedding=EmbeddingSettings(provider="local"),
        search=SearchSettings(vector_engine="faiss"),
    )
    services = build_services(settings, embedder=build_embedder(settings.embedding))
    corpus = services.processor.corpus
    if args.nprobe:
        corpus.faiss().nprobe = args.nprobe
    print(
        f"faiss probes {corpus.faiss().nprobe}; load average {os.getloadavg()[0]:.1f}; "
        f"rows {corpus.collection.count():,}",
        flush=True,
    )
    wall, cpu = time.perf_counter(), time.process_time()
    work = corpus.maintain_faiss()
    print(
        f"faiss upkeep: {work.action} (+{work.added:,} / -{work.removed:,}) in "
        f"{time.perf_counter() - wall:.0f} s wall, "
        f"{time.process_time() - cpu:.0f} s CPU; disk {corpus.faiss().files.disk_bytes() / 1e6:.0f} MB "
        f"(load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    queries = locomo_corpus.queries(98)[: args.queries]
    vectors = [services.embedder.embed_query(q) for q in queries]  # the model loaded before `before`
    corpus.faiss().release()
    before = rss()
    corpus.faiss().search(vectors[0], 30, Filter())
    after = rss()
    print(
        f"RSS {before[0]:.0f} MB (anonymous {before[1]:.0f}) before opening the index; "
        f"on opening it and one search: +{after[0] - before[0]:.0f} MB "
        f"(anonymous +{after[1] - before[1]:.0f} MB); "
        f"peak so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB",
        flush=True,
    )
    held = corpus.faiss().release()
    released = rss()
    print(
        f"after the idle release: RSS {released[0]:.0f} MB (anonymous {released[1]:.0f}); tail bytes {held}",
        flush=True,
    )
    newest = int(
        corpus.collection.table.search()
        .select(["timestamp"])
        .limit(None)
        .to_arrow()
        .column("timestamp")
        .to_numpy()
        .max()
    )
    filters = kinds(newest)
    exact = (
        Exact(corpus.collection, args.data_dir / "bench_faiss_vectors.npy")
        if (not args.no_leg or args.exact)
        else None
    )
    if not args.no_leg and exact is not None:
        leg(services, exact, vectors, filters)
    if args.whole:
        whole(services, exact if args.exact else None, queries, filters)
    services.close()
    if exact is not None:
        (args.data_dir / "bench_faiss_vectors.npy").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
