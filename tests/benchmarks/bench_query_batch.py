"""Batched query embeddings for REST searches (issue 16, `rest7`): CPU a search, one process, interleaved.

Builds the services as a search worker does (`search_worker.run`: ONNX on one intra-op thread) on
an existing data dir, plus a second MiniLM session as the server process holds it (`--server-
threads`, default as `strata serve` builds it). Then, for groups of `--batch` distinct queries,
two arms in alternating order, the query cache cleared before each search:

- own: each search embeds its query in the worker, as without `api.search_query_batch`;
- batched: the server's session embeds the group's first texts in one call (`query_batch.py`),
  and each search gets its vector in the worker's query cache first, as a job carries it.

Prints the process CPU a search of both arms (the batch's call counted in full), their ratio
(which the machine's load moves much less than wall time), how many answers were the same JSON
bytes, and the largest difference between a batched vector and the one the worker makes.

    python tests/benchmarks/bench_query_batch.py --data-dir DIR [--queries 240] [--batch 8]
        [--server-threads N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api import search_worker
from app.api.query_batch import first_text
from app.api.routes import search as search_route
from app.api.schemas import SearchIn
from app.bootstrap import build_services
from app.core.clock import SystemClock
from app.core.embeddings.factory import build_embedder
from app.core.settings import load_settings
from tests.benchmarks import bench_search
from tests.benchmarks.bench_search import percentile
from tests.benchmarks.bench_search_stages import _clear_query_cache

WARM_UP_GROUPS = 3


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=240)
    parser.add_argument("--batch", type=int, default=8, help="queries embedded in one call")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument(
        "--server-threads", type=int, default=None, help="the server's intra-op threads (default: serve's)"
    )
    args = parser.parse_args()
    settings = load_settings(args.data_dir)
    services = build_services(settings, embedder=build_embedder(settings.embedding, threads=1))
    server = build_embedder(settings.embedding, threads=args.server_threads)
    embed = getattr(server, "embed_queries", None)
    remember = getattr(services.embedder, "remember_queries", None)
    if embed is None or remember is None:
        print("this embedder does not batch queries (int8 query activations?): nothing to measure")
        return 1
    now_ms = SystemClock().now_ms()
    _, base = bench_search.corpus("synthetic", 10)
    spent = {False: 0.0, True: 0.0}
    walls: dict[bool, list[float]] = {False: [], True: []}
    same = total = 0
    worst = 0.0
    groups = WARM_UP_GROUPS + max(1, args.queries // args.batch)
    for g in range(groups):
        bodies = [
            SearchIn(query=f"{base[(g * args.batch + j) % len(base)]} {g * args.batch + j}", limit=args.limit)
            for j in range(args.batch)
        ]
        texts = [first_text(b.query, dated=False, now_ms=now_ms) for b in bodies]
        answers: dict[bool, list[bytes]] = {}
        for batched in (False, True) if g % 2 else (True, False):
            _clear_query_cache(server)
            started = time.process_time()
            vectors = embed(texts) if batched else []
            out = []
            for j, body in enumerate(bodies):
                _clear_query_cache(services.embedder)
                wall = time.perf_counter()
                if batched:
                    remember({texts[j]: vectors[j]})
                out.append(search_worker.response_bytes(search_route._search(services, body)))
                if g >= WARM_UP_GROUPS:
                    walls[batched].append(1000 * (time.perf_counter() - wall))
            if g >= WARM_UP_GROUPS:
                spent[batched] += time.process_time() - started
            answers[batched] = out
            if batched:
                _clear_query_cache(services.embedder)
                own = services.embedder.embed_queries(texts)  # type: ignore[attr-defined]
                worst = max(worst, *(float(np.abs(a - b).max()) for a, b in zip(own, vectors, strict=True)))
        if g >= WARM_UP_GROUPS:
            same += sum(a == b for a, b in zip(answers[False], answers[True], strict=True))
            total += args.batch
    print(
        f"{total} searches per arm in groups of {args.batch}, interleaved; server threads "
        f"{args.server_threads or 'default'}; load {os.getloadavg()[0]:.1f}"
    )
    for batched, name in ((False, "own embedding"), (True, "batched")):
        p50, p95 = percentile(walls[batched], 0.5), percentile(walls[batched], 0.95)
        cpu = 1000 * spent[batched] / total
        print(f"  {name}: {cpu:.2f} ms process CPU/search; search wall p50 {p50:.1f} / p95 {p95:.1f} ms")
    print(f"  ratio {spent[True] / spent[False]:.3f} ({1000 * (spent[True] - spent[False]) / total:+.2f} ms)")
    print(f"  same JSON bytes {same}/{total}; largest vector difference {worst:g}")
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
