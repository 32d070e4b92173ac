"""A search's critical path on two idle cores, estimated from CPU time on a loaded machine.

On a shared machine wall-clock latency says more about the other processes than about the
search. CPU time does not: this runs the searcher's worker tasks inline (one after the other,
on the calling thread), times each stage's process CPU, and estimates the wall time the same
search takes on two idle cores as the serial total minus the work that runs beside the search
thread: the keyword worker's task (as far as the embedding and the vector leg cover it) and the
half of the vector candidates' rows read on a worker. Also counted: SQL statements and stored-
vector lookups per search.

    python tests/benchmarks/bench_critical_path.py --data-dir /tmp/copy-of-locomo-bulk-1000000 [--queries 98]

Needs a bulk-built archive (`bench_search.py --build bulk --workdir DIR`) and `../shared/data`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import Future
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sqlalchemy import event

from app.bootstrap import build_services
from app.core.domain import SearchFilters
from app.core.embeddings.factory import build_embedder
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks import locomo_corpus, locomo_data


class InlinePool:
    """Runs each submitted task at once on the caller's thread, timing its process CPU."""

    def __init__(self, spent: Counter) -> None:
        self.spent = spent

    def submit(self, fn, *args, **kwargs) -> Future:
        future: Future = Future()
        started = time.process_time()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # handed to the caller as the real pool would
            future.set_exception(exc)
        self.spent[fn.__name__] += time.process_time() - started
        return future

    def shutdown(self, wait: bool = True) -> None:
        return None


class TimedEmbedder:
    """The searcher's embedder, its query embeddings timed."""

    def __init__(self, embedder, spent: Counter) -> None:
        self.embedder, self.embed_query = embedder, _timed(spent, "embed", embedder.embed_query)

    def __getattr__(self, name: str):
        return getattr(self.embedder, name)


def _timed(spent: Counter, label: str, fn):
    def run(*args, **kwargs):
        started = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - started

    return run


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
    searcher = services.memory.searcher
    spent: Counter = Counter()
    searcher._keyword_pool.shutdown()
    searcher._keyword_pool = InlinePool(spent)
    searcher.embedder = TimedEmbedder(searcher.embedder, spent)
    searcher.corpus.vector_leg = _timed(spent, "vector_leg", searcher.corpus.vector_leg)
    collection = searcher.corpus.collection
    collection.vectors_of = _timed(spent, "lookups", collection.vectors_of)
    counts: Counter = Counter()
    event.listen(services.db.read_engine, "before_cursor_execute", lambda *a: counts.update(["sql"]))
    queries = locomo_corpus.queries(98)[: args.queries]
    filters = [
        SearchFilters(platforms=("slack",)),
        SearchFilters(channels=("group-3", "team-7")),
        SearchFilters(persons=("Caroline",)),
    ]
    for q in queries[:12]:
        services.memory.search(q + " warmup", limit=10)
    print(f"load average {os.getloadavg()[0]:.1f}")
    for label, chosen in (("no filter", [SearchFilters()]), ("filters", filters)):
        total, path, lookups, statements = [], [], [], []
        for n, q in enumerate(queries):
            spent.clear()
            counts.clear()
            started = time.process_time()
            services.memory.search(q, chosen[n % len(chosen)], limit=10)
            serial = (time.process_time() - started) * 1000
            beside = min(spent["_keyword_and_vectors"], spent["embed"] + spent["vector_leg"])
            total.append(serial)
            path.append(serial - (beside + spent["_read_rows"]) * 1000)
            lookups.append(spent["lookups"] * 1000)
            statements.append(counts["sql"])
        print(
            f"[{label}] {len(total)} searches: CPU p50 {statistics.median(total):.1f} ms; critical path on "
            f"two idle cores, estimated p50 {statistics.median(path):.1f} ms, p95 "
            f"{sorted(path)[int(0.95 * (len(path) - 1))]:.1f} ms; "
            f"SQL statements {statistics.mean(statements):.1f}"
            f"; stored-vector lookups {statistics.median(lookups):.1f} ms CPU (load {os.getloadavg()[0]:.1f})"
        )
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
