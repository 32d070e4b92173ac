"""CPU of one REST search in a search worker, in process, with its query vector handed in (issue 16).

Under load `strata serve` embeds waiting searches' query texts in batches and hands each search
worker its vectors with the job (app/api/query_batch.py), so a worker's search runs no model.
This builds the services as a search worker does (`search_worker.run`: ONNX on one intra-op
thread, the keyword leg on its pool as served), embeds each distinct query's texts ahead of the
timed call (the server's batch: the query, and without the names for a query naming people
where the tree batches that too), and times the `/api/search` handler with the worker's response
encoding: process CPU per search (what `bench_rest.py` calls "its search workers ... ms/request",
without the pipe and the machine's load). `--code-root` runs another checkout's code, so two
trees are compared in separate processes on one data dir (alternate them: CPU still moves a few
per cent with the machine's load); `--dump` writes each answer's JSON bytes, at a fixed clock, to
compare two trees' answers with `cmp`.

    python tests/benchmarks/bench_worker_cpu.py --data-dir DIR [--queries 300] [--code-root CHECKOUT]
        [--dump FILE] [--corpus synthetic|locomo]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
if "--code-root" in sys.argv:  # another checkout's code (main, to compare)
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--code-root") + 1]).resolve()))
sys.path.insert(1, str(HERE))

from app.api import search_worker  # noqa: E402
from app.api.query_batch import first_text  # noqa: E402
from app.api.routes import search as search_route  # noqa: E402
from app.api.schemas import SearchIn  # noqa: E402
from app.bootstrap import build_services  # noqa: E402
from app.core.clock import FixedClock  # noqa: E402
from app.core.embeddings.factory import build_embedder  # noqa: E402
from app.core.settings import load_settings  # noqa: E402
from tests.benchmarks import bench_search, locomo_corpus  # noqa: E402

WARM_UP = 30
NOW_MS = 1_790_000_000_000  # a fixed clock: the same dates and recency in every run


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--code-root", type=Path, default=HERE)
    parser.add_argument("--dump", type=Path, default=None)
    parser.add_argument(
        "--corpus", default="synthetic", choices=["synthetic", "locomo"], help="whose questions to ask"
    )
    args = parser.parse_args()
    settings = load_settings(args.data_dir)
    clock = FixedClock(NOW_MS)
    services = build_services(settings, clock=clock, embedder=build_embedder(settings.embedding, threads=1))
    server_model = build_embedder(settings.embedding, threads=1)  # the server's batch
    # Distinct texts; LoCoMo's questions name people (a second text: the query without the names).
    base = locomo_corpus.queries(98) if args.corpus == "locomo" else bench_search.corpus("synthetic", 10)[1]
    queries = [f"{base[i % len(base)]} {i}" for i in range(WARM_UP + args.queries)]
    services.memory.search("warm up")  # reads the people directory, as the server's first searches do
    vectors = {}
    for query in queries:
        # The texts the server batches: the searcher's own list where the tree has one.
        texts = getattr(services.memory, "query_texts", lambda q, dated: None)(query, False)
        texts = texts or (first_text(query, dated=False, now_ms=NOW_MS),)
        vectors[query] = dict(zip(texts, server_model.embed_queries(list(texts)), strict=True))
    out = args.dump.open("wb") if args.dump else None
    spent, wall = 0.0, 0.0
    load = os.getloadavg()[0]
    for i, query in enumerate(queries):
        services.embedder.remember_queries(vectors[query])  # as the worker does with a job's vectors
        started, started_wall = time.process_time(), time.perf_counter()
        body = search_worker.response_bytes(search_route._search(services, SearchIn(query=query, limit=10)))
        if i >= WARM_UP:
            spent += time.process_time() - started
            wall += time.perf_counter() - started_wall
        if out is not None:
            out.write(body + b"\n")
    if out is not None:
        out.close()
    n = args.queries
    print(
        f"{args.code_root}: {1000 * spent / n:.2f} ms process CPU a search ({n} searches, vectors handed "
        f"in), wall {1000 * wall / n:.1f} ms; load {load:.1f} → {os.getloadavg()[0]:.1f}"
    )
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
