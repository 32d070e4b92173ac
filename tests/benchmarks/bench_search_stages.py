"""CPU time of one REST search by stage, in process, on an existing data dir (issue 16, item 6).

Runs the `/api/search` handler (`app.api.routes.search._search`) and the response's JSON
encoding on distinct queries (no query-embedding cache hits), with the keyword leg run inline
so every stage is on one thread, and charges each stage's *own* CPU time (`time.thread_time`,
nested stages subtracted) by wrapping the functions named below for the run. SQL statements
are charged to the stage that ran them ("sql: <stage>"). CPU time does not depend much on the
machine's load, unlike wall time; the HTTP layer (uvicorn, routing, auth, admission, pydantic
query parsing) is what `bench_rest.py`'s server CPU per request adds on top of the total here.

    python tests/benchmarks/bench_search_stages.py --data-dir DIR [--queries 300] [--limit 10]
        [--compare blas|int8|rescore] [--dump FILE] [--code-root CHECKOUT]

`--compare blas` times the same handler with NumPy's BLAS at its default threads (one per core)
and at one thread, `--compare int8` with float and int8 query activations, query by query
interleaved in one process (no stage wrappers, keyword leg on its pool as served): process CPU
per search of each, and their ratio, which the machine's load moves much less than either.
`--compare rescore` does the same for the exact copies' projected scan (`search.vector_rescore_rows`
0, the exact bound, against the data dir's setting): the same query text in both arms, the query
cache cleared before each search, and the agreement of the two answers (top `--limit` ids, scores).

`--dump FILE` writes each query's response (hits with ids, scores, relevances) as JSON lines,
at a fixed clock, so two checkouts' answers on two copies of the same data dir can be compared
with `cmp` (a change meant to cost less must give the same bytes).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
if "--code-root" in sys.argv:  # another checkout's code (main, to compare answers with --dump)
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--code-root") + 1]).resolve()))

from app.api.routes import search as search_route
from app.api.schemas import SearchIn
from app.bootstrap import Services, build_services
from app.core.search import messages as messages_module
from app.core.search import ranking as ranking_module
from app.core.settings import load_settings
from app.services import memory_service as memory_module
from tests.benchmarks import bench_search


class StageClock:
    """Own CPU time per stage: a stage's inclusive time minus the stages nested in it."""

    def __init__(self) -> None:
        self.own: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack: list[list[Any]] = []  # [name, nested time]

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        frame = [name, 0.0]
        self._stack.append(frame)
        started = time.thread_time()
        try:
            yield
        finally:
            spent = time.thread_time() - started
            self._stack.pop()
            self.own[name] += spent - frame[1]
            self.calls[name] += 1
            if self._stack:
                self._stack[-1][1] += spent

    def current(self) -> str:
        return self._stack[-1][0] if self._stack else "outside"

    def wrap(self, owner: Any, attribute: str, name: str) -> None:
        original = getattr(owner, attribute)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.stage(name):
                return original(*args, **kwargs)

        setattr(owner, attribute, timed)

    def reset(self) -> None:
        self.own.clear()
        self.calls.clear()


class _Inline:
    """Runs the keyword leg on the calling thread, so its CPU time is seen (and charged) here."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args))
        return future


def instrument(services: Services, clock: StageClock) -> None:
    searcher = services.memory.searcher
    searcher._keyword_pool = _Inline()  # type: ignore[assignment]
    clock.wrap(search_route, "_search", "route: SearchIn→filters, SearchOut")
    clock.wrap(services.privacy, "outgoing", "privacy masking of hits")
    clock.wrap(memory_module, "merge_hits", "merge kinds, floor")
    clock.wrap(services.memory, "search_outcome", "search_outcome")
    clock.wrap(searcher, "search_understood", "search_understood")
    clock.wrap(searcher.people, "mentions", "query understanding: people")
    clock.wrap(messages_module, "parse_query_dates", "query understanding: dates")
    clock.wrap(searcher.embedder, "embed_query", "query embedding (ONNX)")
    clock.wrap(searcher.corpus, "vector_leg", "vector leg")
    clock.wrap(searcher, "_keyword_and_vectors", "keyword leg (FTS5/BM25)")
    clock.wrap(searcher, "_search", "candidate rows, own cosines")
    clock.wrap(searcher.windows, "around", "conversation windows (NumPy)")
    clock.wrap(messages_module, "rank_messages", "ranking loop, neighbour rows")
    clock.wrap(ranking_module, "score_candidates", "relevance scoring")
    clock.wrap(messages_module, "to_hit", "hit objects")
    clock.wrap(messages_module, "hit_rows", "candidate and neighbour rows (hit_rows)")
    if searcher.keys is not None:  # the sentence-key leg's scan (its own corpus)
        clock.wrap(searcher.keys, "vector_leg", "sentence-key vector leg")
    # Every SQL statement, charged to the stage that runs it.
    from sqlalchemy.orm import Session

    execute = Session.execute

    def timed_execute(session: Any, *args: Any, **kwargs: Any) -> Any:
        current = clock.current()
        # Other threads (the access counter's writer) and SQLAlchemy re-entering execute are not
        # charged: the first runs beside the search (process CPU shows it), the second is nested.
        if threading.current_thread() is not threading.main_thread() or current.startswith("sql: "):
            return execute(session, *args, **kwargs)
        with clock.stage(f"sql: {current}"):
            return execute(session, *args, **kwargs)

    Session.execute = timed_execute  # type: ignore[method-assign]


def run(data_dir: Path, n: int, limit: int) -> None:
    services = build_services(load_settings(data_dir))
    clock = StageClock()
    instrument(services, clock)
    _, base = bench_search.corpus("synthetic", 10)

    def one(i: int) -> None:
        with clock.stage("JSON encoding"):
            out = search_route._search(services, SearchIn(query=f"{base[i % len(base)]} {i}", limit=limit))
            out.model_dump_json()

    for i in range(20):  # warm-up: model, in-memory vector copy, conversation layout
        one(i)
    clock.reset()
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    for i in range(1000, 1000 + n):
        one(i)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    total = sum(clock.own.values())
    print(f"{n} searches, limit {limit}, {data_dir}; load {load:.1f} → {os.getloadavg()[0]:.1f}")
    print(f"process CPU {1000 * cpu / n:.1f} ms/search (all threads), wall {1000 * wall / n:.1f} ms/search")
    print("| stage | CPU ms/search | share |\n|---|---:|---:|")
    for name, spent in sorted(clock.own.items(), key=lambda item: -item[1]):
        print(f"| {name} | {1000 * spent / n:.2f} | {100 * spent / total:.0f} % |")
    print(f"| **total (main thread)** | **{1000 * total / n:.2f}** | |")


def compare(data_dir: Path, n: int, limit: int, what: str, rescore: int | None = None) -> None:
    """Process CPU per search of two variants, interleaved query by query."""
    from threadpoolctl import threadpool_limits

    from app.core.embeddings.int8_queries import Int8QueryEmbedder
    from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder

    services = build_services(load_settings(data_dir))
    _, base = bench_search.corpus("synthetic", 10)
    if what == "rescore":
        compare_rescore(services, base, n, limit, data_dir, rescore)
        return
    if what == "blas":
        cores = os.cpu_count() or 1
        arms: dict[str, Callable[[], Any]] = {
            f"BLAS {cores} threads": lambda: threadpool_limits(cores, user_api="blas"),
            "BLAS 1 thread": lambda: threadpool_limits(1, user_api="blas"),
        }
    else:
        floats = OnnxMiniLMEmbedder()
        int8 = Int8QueryEmbedder(floats)
        assert int8.load_queries(), int8.failed
        switch = services.embedder.switch  # type: ignore[attr-defined]
        arms = {"float queries": lambda: switch(floats), "int8 queries": lambda: switch(int8)}
    spent = dict.fromkeys(arms, 0.0)
    for i in range(20 + n):
        for name, arm in arms.items():
            arm()
            started = time.process_time()
            out = search_route._search(
                services, SearchIn(query=f"{base[i % len(base)]} {i} {name}", limit=limit)
            )
            out.model_dump_json()
            if i >= 20:  # the first 20 warm up both arms
                spent[name] += time.process_time() - started
    print(f"{n} searches per arm, interleaved, limit {limit}, {data_dir}; load {os.getloadavg()[0]:.1f}")
    first, second = spent.values()
    for name, value in spent.items():
        print(f"  {name}: {1000 * value / n:.1f} ms process CPU/search")
    print(f"  ratio {second / first:.2f}")


def compare_rescore(
    services: Services, base: list[str], n: int, limit: int, data_dir: Path, rescore: int | None = None
) -> None:
    """Exact bound against the projected scan: process CPU per search and answer agreement."""
    searcher = services.memory.searcher
    corpora = [c for c in (searcher.corpus, searcher.keys) if c is not None]
    rows = corpora[0].rescore_rows
    other = rows if rescore is None else rescore  # --rescore 0: the exact bound twice (noise)
    arms = {"exact bound (rescore 0)": 0, f"projected scan (rescore {other})": other}
    spent = dict.fromkeys(arms, 0.0)
    walls: dict[str, list[float]] = {name: [] for name in arms}
    same_ids = same_first = same_scores = 0
    overlap = 0.0
    for i in range(20 + n):
        query = f"{base[i % len(base)]} {i}"
        answers = []
        for name, value in list(arms.items()) if i % 2 else list(arms.items())[::-1]:
            for corpus in corpora:
                corpus.rescore_rows = value
            _clear_query_cache(services.embedder)
            started, wall = time.process_time(), time.perf_counter()
            out = search_route._search(services, SearchIn(query=query, limit=limit))
            out.model_dump_json()
            if i >= 20:  # the first 20 warm up both arms
                spent[name] += time.process_time() - started
                walls[name].append(1000 * (time.perf_counter() - wall))
            answers.append((name, [(h.id, h.score) for h in out.hits]))
        if i < 20:
            continue
        a, b = (dict(answers)[name] for name in arms)
        ids_a, ids_b = [h[0] for h in a], [h[0] for h in b]
        same_ids += ids_a == ids_b
        same_scores += a == b
        same_first += ids_a[:1] == ids_b[:1]
        overlap += len(set(ids_a) & set(ids_b)) / max(1, len(ids_a), len(ids_b))
    for corpus in corpora:
        corpus.rescore_rows = rows
    print(f"{n} searches per arm, interleaved, limit {limit}, {data_dir}; load {os.getloadavg()[0]:.1f}")
    first, second = spent.values()
    for name, value in spent.items():
        p50, p95 = bench_search.percentile(walls[name], 0.5), bench_search.percentile(walls[name], 0.95)
        print(
            f"  {name}: {1000 * value / n:.1f} ms process CPU/search; wall p50 {p50:.1f} / p95 {p95:.1f} ms"
        )
    print(f"  ratio {second / first:.3f} ({1000 * (second - first) / n:+.2f} ms)")
    print(
        f"  agreement: same top {limit} ids in order {same_ids}/{n}, ids and scores {same_scores}/{n}, "
        f"same first hit {same_first}/{n}, mean overlap {overlap / n:.4f}"
    )


def _clear_query_cache(embedder: Any) -> None:
    """Forget cached query vectors (each arm must embed, or the second would be cheaper)."""
    active = getattr(embedder, "_active", embedder)
    for holder in (active, getattr(active, "documents", None)):
        for name in ("_query_cache", "_cache"):
            cache = getattr(holder, name, None)
            if cache is not None:
                cache.clear()


def dump(data_dir: Path, n: int, limit: int, path: Path) -> None:
    """Every query's hits as one JSON line each (fixed clock: recency is part of the score)."""
    from app.core.clock import FixedClock

    services = build_services(load_settings(data_dir), clock=FixedClock(1_790_000_000_000))
    _, base = bench_search.corpus("synthetic", 10)
    cpu = time.process_time()
    with path.open("w") as out:
        for i in range(1000, 1000 + n):
            found = search_route._search(services, SearchIn(query=f"{base[i % len(base)]} {i}", limit=limit))
            out.write(found.model_dump_json() + "\n")  # ids, scores, relevances, every field
    print(f"{n} queries written to {path}; {1000 * (time.process_time() - cpu) / n:.1f} ms CPU/search")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--compare", choices=["blas", "int8", "rescore"], default=None)
    parser.add_argument("--rescore", type=int, default=None, help="--compare rescore: the second arm's rows")
    parser.add_argument("--dump", type=Path, default=None, help="write each query's hits (JSON lines)")
    parser.add_argument("--code-root", type=Path, default=None, help="search with this checkout's code")
    args = parser.parse_args()
    if args.dump:
        dump(args.data_dir, args.queries, args.limit, args.dump)
    elif args.compare:
        compare(args.data_dir, args.queries, args.limit, args.compare, args.rescore)
    else:
        run(args.data_dir, args.queries, args.limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
