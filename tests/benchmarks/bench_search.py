"""Search latency p50/p95 (query embedding included, warm) from 10k to 1M messages.

Embedding 100k messages with the local model takes ~20 minutes on 2 cores, so the index is
built from real model vectors of a 3,000-message sample, reused with small noise for the rest
(`RecycledEmbedder`); queries are embedded by the real model inside the timed call, every time:
the model's query cache is emptied before each timed search (`FreshQueries`), so the filtered
pass, the interleaved baseline and `--compare` do the same embedding work as the first pass
(before, the filtered pass and the main archive beside the baseline reused cached vectors).

    python tests/benchmarks/bench_search.py [--sizes 10000,100000] [--embedder local|hashing]
        [--corpus synthetic|locomo] [--workdir DIR] [--build auto|ingest|bulk] [--recall N]
        [--baseline SIZE] [--compare FIELD=VALUE] [--ranking N] [--keys SHARE]

From 200k messages (`--build auto`) the LoCoMo corpus is written in bulk (`scale_corpus.py`:
minutes for 1M) instead of through the ingest path, and the background job's vector index is
built and timed. Each size then reports: latency without and with filters (platform, channel,
a two-year date range, a person), the vector leg alone on the index and on LanceDB's flat scan
(the path above 300k before the index: the in-process baseline), Recall@10 of the vector leg
against exact NumPy scores over every stored vector (`--recall` queries), disk per message, and
the process's RSS. `--baseline 100000` also searches a bulk-built 100k archive (the in-memory
path) with the same queries interleaved, so a loaded machine slows both alike: the ratio is the
figure to compare with quiet-machine runs at 100k.

`--corpus synthetic` (the default) is a worst case for keyword search: ~150 distinct words, so
every query word matches 10-20 % of all messages. `--corpus locomo` grows the corpus from
LoCoMo's real turns (real word frequencies) and asks LoCoMo's questions; it needs
`../shared/data`. `--workdir` keeps the built index there and reuses it on the next run.
`--compare neighbour_candidates=0` also times the same queries with that search setting
(`SearchConfig` field), interleaved query by query in the same process, and prints the ratio:
on a shared machine the load moves both columns alike.

Each run prints how far the archive's sentence keys are built (a bulk-built archive has none
until the repair job embeds them, for hours at 1M). `--keys 0.05` first writes recycled keys
(`scale_corpus.build_keys`: pool vectors picked by each key's text, as for the messages) for the
first 5 % of the messages by id that lack them, the state a bulk import is in while its keys are
built; `--keys 1` keys the whole archive in minutes instead of hours.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text as sql_text

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.domain import RawMessage, SearchFilters
from app.core.embeddings.base import Embedder
from app.core.embeddings.factory import build_embedder
from app.core.index.filters import Filter
from app.core.search.message_query import MessageQuery, message_filter
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks import locomo_corpus, locomo_data, scale_corpus, synthetic

BULK_FROM = 200_000


class RecycledEmbedder:
    """Real query vectors; document vectors drawn from a pool of real ones plus noise."""

    def __init__(self, real: Embedder, pool_texts: Sequence[str]) -> None:
        self.real = real
        self.pool = real.embed_documents(list(pool_texts))
        self.rng = np.random.default_rng(1)

    @property
    def model_id(self) -> str:
        return self.real.model_id

    @property
    def dimensions(self) -> int:
        return self.real.dimensions

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        idx = [zlib.crc32(t.encode()) % len(self.pool) for t in texts]
        vecs = self.pool[idx] + self.rng.normal(0, 0.02, (len(texts), self.dimensions)).astype(np.float32)
        return (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.real.embed_query(text)


class FreshQueries:
    """The real model with a query cache that lasts one search: `forget()` before each timed call.

    The model's own cache keeps query vectors across searches, so a pass over texts already
    searched (the filtered pass after the unfiltered one, the main archive after the interleaved
    baseline) would skip the embeddings a first search pays. Here every timed search embeds its
    texts anew (the query and the variants the search derives from it), and a text asked for
    twice within one search is embedded once, as the model's cache does. On a miss it runs what
    the model's `embed_query` runs on one (`local` with fp32 queries, `hashing`)."""

    def __init__(self, real: Embedder) -> None:
        self.real = real
        self._memo: dict[str, np.ndarray] = {}
        self.embedded = 0  # texts embedded (misses)

    @property
    def model_id(self) -> str:
        return self.real.model_id

    @property
    def dimensions(self) -> int:
        return self.real.dimensions

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.real.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        vector = self._memo.get(text)
        if vector is None:
            vector = self._memo[text] = self.real.embed_documents([text])[0]
            self.embedded += 1
        return vector.copy()

    def forget(self) -> None:
        self._memo.clear()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def corpus(name: str, size: int) -> tuple[list[RawMessage], list[str]]:
    if name == "locomo":
        return locomo_corpus.messages(size, seed=size), locomo_corpus.queries(98)
    # Distinct query texts defeat the query-embedding cache: every timed call embeds for real.
    queries = [
        f"{q} {suffix}"
        for suffix in ("", "please", "again", "status", "update", "now", "team")
        for q in synthetic.QUERIES
    ]
    return synthetic.messages(size, seed=size), queries


def run(
    size: int,
    provider: str,
    corpus_name: str,
    workdir: Path | None,
    build: str = "auto",
    recall: int = 0,
    baseline: int = 0,
    compare: str | None = None,
    ranking: int = 0,
    keys: float | None = None,
) -> None:
    bulk = build == "bulk" or (build == "auto" and size >= BULK_FROM and corpus_name == "locomo")
    data_dir = workdir / f"{corpus_name}{'-bulk' if bulk else ''}-{size}" if workdir else None
    reuse = data_dir is not None and (data_dir / "strata.sqlite3").exists()
    settings = Settings(
        data_dir=data_dir or Path(tempfile.mkdtemp(prefix=f"strata-bench-search-{size}-")),
        embedding=EmbeddingSettings(provider=provider),
    )
    real = build_embedder(settings.embedding)
    fresh = FreshQueries(real)
    queries = locomo_corpus.queries(98) if bulk else corpus(corpus_name, size)[1]
    print(f"[{size}] load average {os.getloadavg()[0]:.1f}")
    if reuse:
        services = build_services(settings, embedder=fresh)
        print(f"[{size}] reusing the index in {settings.data_dir}")
    elif bulk:
        services = build_services(settings, embedder=fresh)
        pool = scale_corpus.pool_vectors(real, workdir)
        seconds = scale_corpus.build(services, size, pool, progress=lambda line: print(line, flush=True))
        print(f"[{size}] bulk-built {size:,} messages in {seconds:.0f}s")
    else:
        batch = corpus(corpus_name, size)[0]
        embedder = RecycledEmbedder(fresh, [m.content for m in batch[:3000]])
        services = build_services(settings, embedder=embedder)
        started = time.perf_counter()
        services.processor.batch_size = 2000
        services.memory.ingest(batch)
        services.processor.collection.optimize()
        if services.memory.keys is not None:  # sentence keys: built in the background after ingest
            services.memory.keys.wait(timeout_s=7200)
        print(f"[{size}] built index in {time.perf_counter() - started:.0f}s")
    if keys is not None:
        # Before the index job: the keys' own index is built (or extended) with the rest.
        pool = scale_corpus.pool_vectors(real, workdir)
        keyed, written, seconds = scale_corpus.build_keys(
            services, keys, pool, progress=lambda line: print(line, flush=True)
        )
        print(
            f"[{size}] recycled sentence keys: {written:,} keys for {keyed:,} more messages in {seconds:.0f}s"
        )
    _key_state(services, size)
    started = time.perf_counter()
    work = services.index.maintain_vector_indexes()
    for kind, done in work.items():
        print(f"[{size}] vector index of {kind}: {done.action} in {time.perf_counter() - started:.0f}s")
    status = services.processor.corpus.ann().status()
    print(f"[{size}] vector index: {status.to_dict()}")
    # Before the job drops replaced versions (bench_vector_prune.py measures after; not run here:
    # its compaction rewrites the index a reused data dir is timed on).
    _disk(settings.data_dir, size)

    newest = _newest_timestamp(services)
    filtered = [
        SearchFilters(platforms=("slack",)),
        SearchFilters(channels=("group-3", "team-7")),
        SearchFilters(since=newest - 2 * 365 * 86_400_000),
        SearchFilters(persons=("Caroline",)),
    ]
    for n, q in enumerate(queries[:12]):
        services.memory.search(q + " warmup", [SearchFilters(), *filtered][n % 5], limit=10)
    base = _baseline(baseline, fresh, workdir) if baseline else None
    print(
        f"[{size}] every timed search below embeds its query texts anew (the query and the variants "
        "the search derives from it), in each pass and in the baseline alike"
    )
    for label, filters in [("no filter", [SearchFilters()]), ("filters", filtered)]:
        latencies, cpu, base_latencies = [], [], []
        embedded = fresh.embedded
        for n, q in enumerate(queries):
            if base is not None:  # interleaved, so both see the same machine load
                fresh.forget()
                started = time.perf_counter()
                base.memory.search(q, filters[n % len(filters)], limit=10)
                base_latencies.append((time.perf_counter() - started) * 1000)
            fresh.forget()
            started, cpu_started = time.perf_counter(), time.process_time()
            services.memory.search(q, filters[n % len(filters)], limit=10)
            latencies.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - cpu_started) * 1000)
        searches = len(queries) * (2 if base is not None else 1)
        print(
            f"[{size}, {corpus_name}, {label}] {len(latencies)} queries: "
            f"p50 {statistics.median(latencies):.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms, "
            f"max {max(latencies):.1f} ms, CPU p50 {statistics.median(cpu):.1f} ms, "
            f"load {os.getloadavg()[0]:.1f}; "
            f"{(fresh.embedded - embedded) / searches:.2f} texts embedded a search"
        )
        if base_latencies:
            ratio50 = statistics.median(latencies) / statistics.median(base_latencies)
            ratio95 = percentile(latencies, 0.95) / percentile(base_latencies, 0.95)
            print(
                f"  baseline {baseline:,} (in-memory copy) same queries interleaved: "
                f"p50 {statistics.median(base_latencies):.1f} ms, "
                f"p95 {percentile(base_latencies, 0.95):.1f} ms; "
                f"ratio {ratio50:.2f}x p50, {ratio95:.2f}x p95"
            )
    if base is not None:
        base.close()
    print(f"[{size}] RSS after the queries {_rss_mb():.0f} MB")
    copy = services.processor.corpus.matrix().memory_bytes()
    print(
        f"[{size}] in-memory vector copy: {copy / 2**20:.0f} MB"
        + ("" if copy else " (not held: the index serves)")
    )
    _vector_leg(services, real, queries, filtered, recall)
    if ranking:
        _ranking(services, queries[:ranking], filtered)
    if compare:
        _compare(services, fresh, queries, compare)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"[{size}] RSS {_rss_mb():.0f} MB (peak {peak:.0f} MB, the recall check's exact copy included)")
    services.close()


def _key_state(services: Any, size: int) -> None:
    """How far the sentence keys are built: a partly keyed archive ranks and costs differently."""
    keys = services.memory.keys
    if keys is None:
        print(f"[{size}] sentence keys: off")
        return
    with services.db.read() as session:
        stamped = session.execute(sql_text("SELECT count(*) FROM message_key_stamps")).scalar_one()
    collection = keys.corpus.collection
    count = collection.count() if collection.exists else 0  # reads must not create the table
    print(
        f"[{size}] sentence keys: {count:,} keys; "
        f"{stamped:,} of {size:,} messages stamped ({stamped / size:.1%})"
    )


def _baseline(size: int, real: FreshQueries, workdir: Path | None) -> Any:
    """A bulk-built archive of `size` messages (reused from `workdir`), searched beside the main one."""
    data_dir = (workdir or Path(tempfile.mkdtemp(prefix="strata-bench-baseline-"))) / f"locomo-bulk-{size}"
    reuse = (data_dir / "strata.sqlite3").exists()
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="local"))
    services = build_services(settings, embedder=real)
    if not reuse:
        scale_corpus.build(
            services, size, scale_corpus.pool_vectors(real.real, workdir), progress=lambda line: None
        )
    for q in locomo_corpus.queries(10):
        services.memory.search(q + " warmup", limit=10)
    return services


def _vector_leg(
    services: Any, real: Embedder, queries: list[str], filtered: list[SearchFilters], recall: int
) -> None:
    """The vector leg alone: the serving path, LanceDB's flat scan, and Recall@10 against exact."""
    corpus = services.processor.corpus
    collection = corpus.collection
    vectors = [real.embed_query(q) for q in queries]
    wheres = [
        message_filter(MessageQuery(q, f, 10, "local")) for q, f in zip(queries, filtered * 50, strict=False)
    ]
    plain = message_filter(MessageQuery("", SearchFilters(), 10, "local"))

    def timed(leg, count: int) -> list[float]:
        out = []
        for n, v in enumerate(vectors[:count]):
            started = time.perf_counter()
            leg(v, plain if n % 2 == 0 else wheres[n])
            out.append((time.perf_counter() - started) * 1000)
        return out

    served = timed(lambda v, w: corpus.vector_leg(v, 30, w), len(vectors))
    flat = timed(lambda v, w: _flat(collection, v, 30, w), 10)
    print(
        f"  vector leg (pool 30, half filtered): serving path p50 {statistics.median(served):.1f} ms "
        f"p95 {percentile(served, 0.95):.1f} ms; LanceDB flat scan p50 {statistics.median(flat):.1f} ms "
        f"(in-process ratio {statistics.median(flat) / statistics.median(served):.1f}x)"
    )
    if recall <= 0:
        return
    data = collection.table.to_arrow()
    keys = data.column("key").to_numpy(zero_copy_only=False)
    matrix = np.asarray(data.column("vector").combine_chunks().flatten(), dtype=np.float32).reshape(
        len(data), -1
    )
    columns = {c: _as_numpy(data.column(c)) for c in collection.columns}
    del data
    from app.core.index.filters import to_mask

    for label, pick in (("no filter", lambda n: plain), ("filters", lambda n: wheres[n])):
        found = 0
        for n, v in enumerate(vectors[:recall]):
            scores = matrix @ v
            scores[~to_mask(pick(n), columns, len(keys))] = -np.inf
            want = set(keys[np.argpartition(-scores, 10)[:10]])
            got = {h.key for h in corpus.vector_leg(v, 10, pick(n))}
            found += len(want & got)
        share = found / (10 * min(recall, len(vectors)))
        print(f"  Recall@10 of the vector leg (asked for 10) against exact, {label}: {share:.3f}")


def _flat(collection, vector: np.ndarray, limit: int, where: Filter) -> None:
    from app.core.index.filters import to_lance

    query = collection.table.search(vector).distance_type("cosine").limit(limit).bypass_vector_index()
    expression = to_lance(where)
    if expression:
        query = query.where(expression, prefilter=True)
    query.select(["key", "_distance"]).to_list()


def _as_numpy(values) -> np.ndarray:
    from app.core.storage.vectors import arrow_column as _column

    return _column(values)


def _newest_timestamp(services) -> int:
    from sqlalchemy import text

    with services.db.read() as session:
        return int(session.execute(text("SELECT max(timestamp) FROM raw_messages")).scalar_one() or 0)


def _disk(data_dir: Path, size: int) -> None:
    def du(path: Path) -> int:
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0

    total = du(data_dir)
    vectors = du(data_dir / "vectors.lance")
    mapped = du(data_dir / "vectors.mmap")  # the memory-mapped vector file (vector_file.py)
    rest = total - vectors - mapped
    print(
        f"  disk: {total / 2**20:.0f} MB in all, {total / size / 1024:.2f} KB a message "
        f"(vectors and their indexes {vectors / size / 1024:.2f} KB, the memory-mapped vector file "
        f"{mapped / size / 1024:.2f} KB, SQLite and the rest {rest / size / 1024:.2f} KB)"
    )


def _ranking(services: Any, queries: Sequence[str], filtered: list[SearchFilters]) -> None:
    """Top 10 of the whole search on the index path (approximate leg, windows from SQLite) against
    the exact path (every vector held in memory, windows from that copy), same process; and the
    index path without windows (as before windows were computed there), against the same."""
    searcher, corpus = services.memory.searcher, services.processor.corpus
    cases = [(q, f) for n, q in enumerate(queries) for f in (SearchFilters(), filtered[n % len(filtered)])]

    def top(config: Any) -> list[list[str]]:
        searcher.config = config
        return [[h.id for h in services.memory.search(q, f, limit=10)] for q, f in cases]

    default = searcher.config
    served = top(default)
    plain = top(dataclasses.replace(default, windows=False))
    fewer = {k: top(dataclasses.replace(default, stored_windowed=k)) for k in (10, 20)}
    held, corpus.max_cached_rows = corpus.max_cached_rows, 10**9
    corpus._caches.clear()  # the next search loads every vector: the exact path
    started = time.perf_counter()
    exact = top(default)
    print(f"  exact path: every vector loaded and searched in {time.perf_counter() - started:.0f}s")
    corpus.max_cached_rows = held
    corpus._caches.clear()
    searcher.config = default

    def agree(a: list[list[str]], b: list[list[str]]) -> str:
        overlap = statistics.mean(len(set(x) & set(y)) / max(1, len(y)) for x, y in zip(a, b, strict=True))
        same = statistics.mean(1.0 if x == y else 0.0 for x, y in zip(a, b, strict=True))
        first = statistics.mean(1.0 if x[:1] == y[:1] else 0.0 for x, y in zip(a, b, strict=True))
        return f"top-10 overlap {overlap:.3f}, same first hit {first:.3f}, identical top 10 {same:.3f}"

    label = f"{len(cases)} searches, half filtered"
    print(f"  ranking, index path vs exact path ({label}): {agree(served, exact)}")
    for k, found in fewer.items():
        print(f"  ranking, index path with windows for the best {k} only vs exact: {agree(found, exact)}")
    print(f"  ranking, index path without windows vs exact path: {agree(plain, exact)}")


def _compare(services: Any, fresh: FreshQueries, queries: Sequence[str], compare: str) -> None:
    """Time the default SearchConfig against FIELD=VALUE, query by query in this process."""
    searcher = services.memory.searcher
    default = searcher.config
    changes: dict[str, object] = {}
    for assignment in compare.split(","):  # FIELD=VALUE[,FIELD=VALUE…]
        name, _, value = assignment.partition("=")
        kind = type(getattr(default, name))
        changes[name] = value.lower() == "true" if kind is bool else kind(value)  # bool("false") is True
    configs = {
        "default": default,
        compare: dataclasses.replace(default, **changes),
    }
    latencies: dict[str, list[float]] = {label: [] for label in configs}
    cpu: dict[str, list[float]] = {label: [] for label in configs}
    for q in queries:
        for label, config in configs.items():
            searcher.config = config
            fresh.forget()  # both settings embed the query anew
            started, cpu_started = time.perf_counter(), time.process_time()
            services.memory.search(q, limit=10)
            latencies[label].append((time.perf_counter() - started) * 1000)
            cpu[label].append((time.process_time() - cpu_started) * 1000)
    searcher.config = default
    for label, values in latencies.items():
        print(
            f"  [{label}] p50 {statistics.median(values):.1f} ms, p95 {percentile(values, 0.95):.1f} ms, "
            f"CPU mean {statistics.mean(cpu[label]):.1f} ms (load {os.getloadavg()[0]:.1f})"
        )
    base, other = latencies["default"], latencies[compare]
    print(
        f"  ratio default / {compare}: p50 {statistics.median(base) / statistics.median(other):.2f}, "
        f"p95 {percentile(base, 0.95) / percentile(other, 0.95):.2f}"
    )


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--embedder", default="local", choices=["local", "hashing"])
    parser.add_argument("--corpus", default="synthetic", choices=["synthetic", "locomo"])
    parser.add_argument("--workdir", type=Path, default=None, help="keep and reuse built indexes here")
    parser.add_argument("--build", default="auto", choices=["auto", "ingest", "bulk"])
    parser.add_argument("--recall", type=int, default=50, help="queries for Recall@10 (0: skip)")
    parser.add_argument(
        "--baseline", type=int, default=0, help="also search a bulk-built archive of this size, interleaved"
    )
    parser.add_argument(
        "--compare", default=None, help="also time with FIELD=VALUE[,FIELD=VALUE…] of SearchConfig"
    )
    parser.add_argument(
        "--ranking", type=int, default=0, help="queries whose top 10 is compared: index path vs exact path"
    )
    parser.add_argument(
        "--keys",
        type=float,
        default=None,
        help="first build recycled sentence keys for this share of the messages (by id) that lack them",
    )
    args = parser.parse_args()
    if args.corpus == "locomo" and not locomo_corpus.available():
        print(f"skipped: {locomo_data.DATA} is missing (the locomo corpus is grown from it)")
        return 0
    for size in (int(s) for s in args.sizes.split(",")):
        run(
            size,
            args.embedder,
            args.corpus,
            args.workdir,
            args.build,
            args.recall,
            args.baseline,
            args.compare,
            args.ranking,
            args.keys,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
