"""Searches a person types now and then (spaced `--gap` seconds) against the same kind of search right
after another, in one process: wall and the search thread's CPU.

Benchmarks that search back to back never see what expires between two searches: at 1M the
people directory's GROUP BY (~125-160 ms of CPU) was read again on the critical path of every
search after 30 s without one (docs/benchmarks.md, "1M: p50 margin"). Each round sleeps `--gap`
seconds, searches one LoCoMo question, then another at once.

    python tests/benchmarks/bench_spaced_search.py --data-dir COPY-OF-locomo-bulk-1000000 \
        [--rounds 8] [--gap 35] [--code-root CHECKOUT]

`--code-root` runs another checkout's code (e.g. a worktree of `main`) on the same data dir.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--gap", type=float, default=35.0)
    parser.add_argument("--code-root", type=Path, default=None)
    args = parser.parse_args()
    if args.code_root is not None:
        sys.path.insert(0, str(args.code_root.resolve()))
    from app.bootstrap import build_services
    from app.core.domain import SearchFilters
    from app.core.embeddings.factory import build_embedder
    from app.core.settings import load_settings
    from tests.benchmarks import locomo_corpus, locomo_data

    if not locomo_corpus.available():
        print(f"skipped: {locomo_data.DATA} is missing")
        return 0
    settings = load_settings(args.data_dir)
    services = build_services(settings, embedder=build_embedder(settings.embedding))
    queries = locomo_corpus.queries(98)
    for q in queries[:20]:
        services.memory.search(q + " warmup", limit=10)

    def one(text: str) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.thread_time()
        services.memory.search(text, SearchFilters(), limit=10)
        return 1000 * (time.perf_counter() - wall), 1000 * (time.thread_time() - cpu)

    spaced, after = [], []
    for n in range(args.rounds):
        time.sleep(args.gap)
        spaced.append(one(queries[20 + 2 * n]))
        after.append(one(queries[21 + 2 * n]))
        print(
            f"  round {n + 1}: spaced {spaced[-1][0]:.0f} ms wall, {spaced[-1][1]:.0f} ms search-thread CPU; "
            f"right after {after[-1][0]:.0f} / {after[-1][1]:.0f} (load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    for label, values in (("spaced", spaced), ("right after", after)):
        print(
            f"{label}: wall p50 {statistics.median(v[0] for v in values):.1f} ms, search-thread CPU p50 "
            f"{statistics.median(v[1] for v in values):.1f} ms"
        )
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
