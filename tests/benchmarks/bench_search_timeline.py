"""Wall-clock timeline of a search by stage and thread: what runs when, and what waits for what.

CPU sums (`bench_critical_path.py`, `bench_search_stages.py`) say what a search costs, not how
long it takes: stages overlap on the keyword worker and inside LanceDB. This wraps the
searcher's stages for the run, records each call's start and end (`perf_counter`) and thread,
and the search thread's waits on the workers (`Future.result`), then prints per stage the median
start, end and duration relative to the search's start, and a few searches near the median
drawn as a timeline.

    python tests/benchmarks/bench_search_timeline.py --data-dir COPY-OF-locomo-bulk-1000000
        [--queries 98] [--filters] [--draw 3]

Needs a bulk-built archive (`bench_search.py --build bulk --workdir DIR`) and `../shared/data`
(the LoCoMo questions). Run it with `nice -n -20` on a shared machine and give the load.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from concurrent.futures import Future
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.domain import SearchFilters
from app.core.embeddings.factory import build_embedder
from app.core.search import messages as messages_module
from app.core.search import stored_windows as stored_module
from app.core.settings import EmbeddingSettings, Settings
from app.services import memory_service as memory_module
from tests.benchmarks import locomo_corpus, locomo_data


class Timeline:
    """Spans (stage, thread, start, end) of the current search, relative to its start."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, str, float, float]] = []
        self.origin = 0.0
        self._lock = threading.Lock()

    def start(self) -> None:
        self.spans = []
        self.origin = time.perf_counter()

    def wrap(self, name: str, fn: Any) -> Any:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                ended = time.perf_counter()
                thread = "main" if threading.current_thread() is threading.main_thread() else "worker"
                with self._lock:
                    self.spans.append(
                        (name, thread, (started - self.origin) * 1000, (ended - self.origin) * 1000)
                    )

        return timed


def instrument(services: Any, timeline: Timeline) -> None:
    """Wrap the stages of one search (instance attributes where the searcher calls `self.x`)."""
    memory = services.memory
    searcher = memory.searcher
    wrap = timeline.wrap
    searcher.people.mentions = wrap("understand: people", searcher.people.mentions)
    messages_module.parse_query_dates = wrap("understand: dates", messages_module.parse_query_dates)
    searcher._search = wrap("_search", searcher._search)
    real_embed = searcher.embedder.embed_query

    class Embedder:
        def __getattr__(self, name: str) -> Any:
            return getattr(searcher_embedder, name)

    searcher_embedder = searcher.embedder
    timed_embedder = Embedder()
    timed_embedder.embedder = searcher_embedder  # type: ignore[attr-defined]
    timed_embedder.embed_query = wrap("embed query", real_embed)  # type: ignore[attr-defined]
    if getattr(searcher_embedder, "embed_queries", None) is not None:  # one call for a search's texts
        timed_embedder.embed_queries = wrap("embed queries", searcher_embedder.embed_queries)  # type: ignore[attr-defined]
    searcher.embedder = timed_embedder
    searcher.corpus.vector_leg = wrap("vector leg (ANN)", searcher.corpus.vector_leg)
    if searcher.corpus.vector_engine == "faiss":
        leg = searcher.corpus.faiss()
        leg.search = wrap("faiss leg", leg.search)
        leg._row_filter = wrap("faiss: row filter", leg._row_filter)
    for name in ("_keyword_candidates", "_keyword_and_vectors", "_read_rows", "_named_nearest", "_key_leg"):
        setattr(searcher, name, wrap(name, getattr(searcher, name)))
    for name in ("windows", "_read", "vectors", "prefetch"):
        method = getattr(stored_module.StoredWindows, name)
        setattr(stored_module.StoredWindows, name, wrap(f"stored.{name}", method))
    messages_module.rank_messages = wrap("rank_messages", messages_module.rank_messages)
    messages_module.resolve_keys = wrap("resolve_keys", messages_module.resolve_keys)
    collection = searcher.corpus.collection
    collection.vectors_of = wrap("lance: vectors_of", collection.vectors_of)
    collection.search = wrap("lance: search", collection.search)
    memory.fallback_sources = [wrap(f"fallback {i}", s) for i, s in enumerate(memory.fallback_sources)]
    memory_module.merge_hits = wrap("merge_hits", memory_module.merge_hits)
    if searcher.access is not None:
        searcher.access.record = wrap("access.record", searcher.access.record)
    # The searcher's own waits on its workers (LanceDB's bridge to its event loop uses futures too).
    waits = wrap("WAIT on worker", Future.result)
    plain = Future.result

    def result(self: Future, timeout: float | None = None) -> Any:
        caller = sys._getframe(1).f_globals.get("__name__")
        return (waits if caller == messages_module.__name__ else plain)(self, timeout)

    Future.result = result  # type: ignore[method-assign]


def clear_query_cache(embedder: Any) -> None:
    """Forget the query vectors the embedder keeps (the last 256), through its wrappers."""
    while embedder is not None:
        for name in ("_cache", "_query_cache"):
            getattr(embedder, name, {}).clear()
        inner = getattr(embedder, "active", None) or getattr(embedder, "embedder", None)
        embedder = inner if inner is not embedder else None


def _draw(spans: list[tuple[str, str, float, float]], total: float, width: int = 72) -> None:
    scale = width / max(total, 1e-9)
    for name, thread, a, b in sorted(spans, key=lambda s: (s[1] != "main", s[2])):
        left = int(a * scale)
        bar = " " * left + "#" * max(1, int(b * scale) - left)
        print(f"    {thread:6s} {name:24.24s} {a:6.1f}-{b:6.1f} |{bar}")


def run(
    services: Any, queries: list[str], filters: list[SearchFilters], timeline: Timeline, draw: int
) -> None:
    totals: list[float] = []
    per: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    recorded: list[tuple[float, list[tuple[str, str, float, float]]]] = []
    for n, q in enumerate(queries):
        timeline.start()
        services.memory.search(q, filters[n % len(filters)], limit=10)
        total = (time.perf_counter() - timeline.origin) * 1000
        totals.append(total)
        recorded.append((total, list(timeline.spans)))
        first: dict[tuple[str, str], tuple[float, float]] = {}
        for name, thread, a, b in timeline.spans:
            key = (name, thread)
            s, e = first.get(key, (a, b))
            # Several calls of one stage in one search: from the first start, summed duration.
            first[key] = (min(s, a), e + (b - a) if key in first else b - a)
        for key, (s, d) in first.items():
            per[key].append((s, d))
    print(
        f"  {len(totals)} searches: wall p50 {statistics.median(totals):.1f} ms, "
        f"p95 {sorted(totals)[int(0.95 * (len(totals) - 1))]:.1f} ms (load {os.getloadavg()[0]:.1f})"
    )
    print(f"  {'stage':28s} {'thread':6s} {'share':>5s} {'start p50':>9s} {'time p50':>8s} {'time p95':>8s}")
    for (name, thread), values in sorted(per.items(), key=lambda kv: statistics.median(v[0] for v in kv[1])):
        starts = [v[0] for v in values]
        durations = sorted(v[1] for v in values)
        print(
            f"  {name:28.28s} {thread:6s} {len(values) / len(totals):5.2f} {statistics.median(starts):9.1f} "
            f"{statistics.median(durations):8.1f} {durations[int(0.95 * (len(durations) - 1))]:8.1f}"
        )
    if draw:
        ordered = sorted(recorded, key=lambda r: r[0])
        middle = len(ordered) // 2
        for total, spans in ordered[max(0, middle - draw // 2) : middle - draw // 2 + draw]:
            print(f"  one search near the median, {total:.1f} ms:")
            _draw(spans, total)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=98)
    parser.add_argument("--draw", type=int, default=3, help="searches near the median drawn as timelines")
    args = parser.parse_args()
    if not locomo_corpus.available():
        print(f"skipped: {locomo_data.DATA} is missing")
        return 0
    settings = Settings(data_dir=args.data_dir, embedding=EmbeddingSettings(provider="local"))
    services = build_services(settings, embedder=build_embedder(settings.embedding))
    queries = locomo_corpus.queries(98)[: args.queries]
    for q in queries[:12]:
        services.memory.search(q + " warmup", limit=10)
    timeline = Timeline()
    instrument(services, timeline)
    filters = [
        SearchFilters(platforms=("slack",)),
        SearchFilters(channels=("group-3", "team-7")),
        SearchFilters(persons=("Caroline",)),
    ]
    for label, chosen in (("no filter", [SearchFilters()]), ("filters", filters)):
        # Each pass embeds its queries anew (the embedder keeps the last 256 query vectors).
        clear_query_cache(services.memory.searcher.embedder)
        print(f"[{label}]")
        run(services, queries, chosen, timeline, args.draw)
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
