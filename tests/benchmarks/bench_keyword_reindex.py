"""Keyword reindex on an existing archive: its cost, and what it does to searches meanwhile.

The archive's keyword format stamp is removed (as in a data dir from before the stamp), then the
reindex runs in a background thread as the app's job does, while the same queries are searched
again; the figures are the reindex's CPU and wall time, the longest batch (how long it holds the
write lock), and the search latency during the reindex against the same queries idle.
Run it on a copy: it rewrites every keyword entry (they end as the current code writes them).

    python tests/benchmarks/bench_keyword_reindex.py --workdir COPY_OF_A_DATA_DIR [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.index.keyword_format import KeywordFormatRow
from app.core.settings import EmbeddingSettings, Settings

QUERIES = (
    "what did she say about the camping trip",
    "painting class",
    "adoption agency interview",
    "dog park on the weekend",
    "new job at the bakery",
    "guitar lessons",
    "marathon training",
    "photo of the sunset at the beach",
)


def latencies(services, rounds: int, stop: threading.Event | None = None) -> list[float]:
    out: list[float] = []
    for _ in range(rounds):
        for q in QUERIES:
            if stop is not None and stop.is_set():
                return out
            started = time.perf_counter()
            services.memory.search(q, limit=10)
            out.append(1000 * (time.perf_counter() - started))
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, required=True, help="a COPY of a data dir (rewritten)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not (args.workdir / "strata.sqlite3").exists():
        print(f"skipped: no data dir at {args.workdir}")
        return 0
    services = build_services(Settings(data_dir=args.workdir, embedding=EmbeddingSettings(provider="local")))
    with services.db.write() as session:
        session.query(KeywordFormatRow).delete()
    latencies(services, 1)  # warm: model, vectors, caches
    idle = latencies(services, args.rounds)
    job = services.index.keyword_reindex
    assert job is not None
    batches: list[float] = []
    original = job._batch

    def timed(session):  # the time each batch holds the write lock
        started = time.perf_counter()
        try:
            return original(session)
        finally:
            batches.append(time.perf_counter() - started)

    job._batch = timed  # type: ignore[method-assign]
    done = threading.Event()
    result: dict[str, float] = {}

    def run() -> None:
        cpu, wall = time.thread_time(), time.perf_counter()
        result["rows"] = job.run()
        result["cpu"], result["wall"] = time.thread_time() - cpu, time.perf_counter() - wall
        done.set()

    worker = threading.Thread(target=run)
    worker.start()
    during: list[float] = []
    while not done.is_set():
        during += latencies(services, 1, stop=done)
    worker.join()
    load = os.getloadavg()[0]
    status = services.index.keyword_format()
    print(
        f"reindexed {int(result['rows'])} entries in {result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU "
        f"of its thread (SQLite included); {len(batches)} batches, longest {1000 * max(batches):.0f} ms, "
        f"median {1000 * statistics.median(batches):.0f} ms (load {load:.1f}); "
        f"now {status.to_dict() if status else None}"
    )
    for name, values in (("idle", idle), ("during reindex", during)):
        values = sorted(values)
        p95 = values[int(0.95 * (len(values) - 1))]
        p50 = statistics.median(values)
        print(f"search {name:<15} n={len(values):>4}  p50 {p50:6.1f} ms  p95 {p95:6.1f} ms")
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
