"""rest6's CPU levers for a REST search, each off against on, interleaved in one process (issue 16).

Builds the services as a search worker does (`search_worker.run`: ONNX on one intra-op thread,
the keyword leg on its pool as served) on an existing data dir, then runs each distinct query
through the `/api/search` handler and the worker's response encoding twice, once with the
levers named by `--levers` switched back to the code before them and once as shipped,
alternating which goes first, with the query-embedding cache cleared before each. Prints the
process CPU per search of both arms and their ratio (which the machine's load moves much less
than wall time), and how many answers were the same JSON bytes.

    python tests/benchmarks/bench_rest_levers.py --data-dir DIR [--queries 200] [--levers all]

A lever is switched off by putting the code it replaced back for the run (below); the shipped
code has no switch of its own.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api import search_worker
from app.api.routes import search as search_route
from app.api.schemas import SearchIn
from app.bootstrap import build_services
from app.core.embeddings.factory import build_embedder
from app.core.settings import load_settings
from app.core.storage import vector_cache
from tests.benchmarks import bench_search
from tests.benchmarks.bench_search import percentile
from tests.benchmarks.bench_search_stages import _clear_query_cache


def _old_top_rows(scores: np.ndarray, n: int) -> np.ndarray:
    return np.argpartition(-scores, n - 1)[:n]


# name -> (switch off, switch on)
LEVERS: dict[str, tuple[Callable[[], None], Callable[[], None]]] = {
    "top_rows": (
        lambda: setattr(vector_cache, "top_rows", _old_top_rows),
        lambda: setattr(vector_cache, "top_rows", _NEW["top_rows"]),
    ),
    # The int8 codes' first pass: off = the float projections scanned as before.
    "int8_scan": (
        lambda: setattr(vector_cache, "best_projected_rows", lambda *args: None),
        lambda: setattr(vector_cache, "best_projected_rows", _NEW["int8_scan"]),
    ),
}
_NEW: dict[str, Any] = {
    "top_rows": vector_cache.top_rows,
    "int8_scan": vector_cache.best_projected_rows,
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--levers", default="all", help=f"comma-separated, of: {', '.join(LEVERS)}")
    args = parser.parse_args()
    names = list(LEVERS) if args.levers == "all" else args.levers.split(",")
    settings = load_settings(args.data_dir)
    services = build_services(settings, embedder=build_embedder(settings.embedding, threads=1))
    _, base = bench_search.corpus("synthetic", 10)

    def switch(on: bool) -> None:
        for name in names:
            LEVERS[name][1 if on else 0]()

    spent = {False: 0.0, True: 0.0}
    walls: dict[bool, list[float]] = {False: [], True: []}
    same = 0
    for i in range(20 + args.queries):
        query = f"{base[i % len(base)]} {i}"
        answers: dict[bool, bytes] = {}
        for on in (False, True) if i % 2 else (True, False):
            switch(on)
            _clear_query_cache(services.embedder)
            started, wall = time.process_time(), time.perf_counter()
            out = search_route._search(services, SearchIn(query=query, limit=args.limit))
            answers[on] = search_worker.response_bytes(out)
            if i >= 20:  # the first 20 warm up both arms
                spent[on] += time.process_time() - started
                walls[on].append(1000 * (time.perf_counter() - wall))
        same += i >= 20 and answers[False] == answers[True]
    n = args.queries
    print(f"{n} searches per arm, interleaved, levers {','.join(names)}; load {os.getloadavg()[0]:.1f}")
    for on, name in ((False, "before"), (True, "after")):
        p50, p95 = percentile(walls[on], 0.5), percentile(walls[on], 0.95)
        cpu = 1000 * spent[on] / n
        print(f"  {name}: {cpu:.2f} ms process CPU/search; wall p50 {p50:.1f} / p95 {p95:.1f} ms")
    print(f"  ratio {spent[True] / spent[False]:.3f} ({1000 * (spent[True] - spent[False]) / n:+.2f} ms)")
    print(f"  same JSON bytes {same}/{n}")
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
