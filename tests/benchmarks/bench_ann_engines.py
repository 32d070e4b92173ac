"""Vector engines at 1M on the app's own vectors: LanceDB IVF_SQ (today) against usearch and faiss.

Works on a COPY of an archive's `vectors.lance` (read only) and a scratch directory `--cache`
where the vectors are dumped once (`.npy`, ~1.6 GB at 1M) and each engine's index is built once
and saved (build time printed then). Every engine answers the same LoCoMo questions for the app's
pool (30 rows): Recall@10 and Recall@30 of its top rows against exact NumPy over every vector,
CPU and wall per query (median, p95; CPU is the process's, all threads), with and without a
filter. Candidates an engine finds are re-scored from the float32 vectors (a memory map of the
dump), as the app needs exact cosines; that cost is inside the figures.

Filters: `platform = 'slack'` (a third of the rows), a date range (~5 %) and one channel (~1 %).
LanceDB applies them before its search (prefilter, as the app does); faiss through an id
selector inside its search; usearch, which has no filter in Python, by asking for more rows and
dropping the others afterwards (`--oversample`), or not at all under `--min-share` (the app
would hand such a filter to LanceDB).

    python tests/benchmarks/bench_ann_engines.py --lance COPY/vectors.lance --cache DIR
        [--engines lance,usearch-i8,usearch-f16,faiss-ivf,faiss-hnsw] [--queries 98] [--passes 2]
        [--nprobe 40,80] [--expansion 64,128] [--take] [--prefix 150000]

`--passes 2` measures every variant twice in a row (LanceDB's CPU falls in a second pass, as its
caches fill); `--prefix N` works on the first N rows only (truth and indexes kept apart), for an
engine whose 1M build is too long for the machine; `--take` re-scores from LanceDB instead.

Needs `../shared/data` (LoCoMo) for the questions. Peak memory ~4 GB at 1M (dump + truth).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lancedb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.embeddings.factory import build_embedder
from app.core.settings import EmbeddingSettings
from tests.benchmarks import locomo_corpus

TABLE_PREFIX = "messages__"
POOL = 30
Search = Callable[[np.ndarray, np.ndarray | None, float], list[int]]


def rss_mb() -> tuple[float, float]:
    """(anonymous, file-backed) resident MB of this process."""
    fields = dict(
        line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line
    )
    return int(fields["RssAnon"].split()[0]) / 1024, int(fields["RssFile"].split()[0]) / 1024


def dump(lance: Path, cache: Path) -> None:
    """The table's rows as arrays in `cache` (row i of each file is row i of the table)."""
    if (cache / "vectors.npy").exists():
        return
    db = lancedb.connect(str(lance))
    name = next(n for n in db.list_tables().tables if n.startswith(TABLE_PREFIX))
    data = (
        db.open_table(name)
        .to_arrow()
        .select(["key", "vector", "platform", "channel", "timestamp", "archived"])
    )
    flat = data.column("vector").combine_chunks().flatten()
    np.save(cache / "vectors.npy", np.asarray(flat, dtype=np.float32).reshape(len(data), -1))
    np.save(cache / "keys.npy", np.asarray([int(k) for k in data.column("key").to_pylist()], dtype=np.int64))
    for column in ("platform", "channel"):
        np.save(cache / f"{column}.npy", np.asarray(data.column(column).to_pylist()))
    np.save(cache / "timestamp.npy", np.asarray(data.column("timestamp").to_pylist(), dtype=np.int64))
    np.save(cache / "archived.npy", np.asarray(data.column("archived").to_pylist(), dtype=bool))


def row_ids(lance: Path, cache: Path) -> np.ndarray:
    """LanceDB's row id of each row of the dump (same order: one scan of the key column)."""
    path = cache / "rowids.npy"
    if not path.exists():
        db = lancedb.connect(str(lance))
        table = db.open_table(next(n for n in db.list_tables().tables if n.startswith(TABLE_PREFIX)))
        data = table.search().select(["key"]).with_row_id(True).limit(None).to_arrow()
        keys = np.asarray([int(k) for k in data.column("key").to_pylist()], dtype=np.int64)
        assert (keys == np.load(cache / "keys.npy")).all(), "the table changed since the dump"
        np.save(path, data.column("_rowid").to_numpy())
    return np.load(path)


def taken(lance: Path, cache: Path, inner: Search) -> Search:
    """`inner`'s candidates re-scored as the app would have to: their vectors and filter columns
    taken from LanceDB by row id (exact cosines, current columns, deleted rows gone)."""
    db = lancedb.connect(str(lance))
    table = db.open_table(next(n for n in db.list_tables().tables if n.startswith(TABLE_PREFIX)))
    rowids = row_ids(lance, cache)
    keys = np.load(cache / "keys.npy")
    row_of = np.empty(keys.max() + 1, dtype=np.int64)
    row_of[keys] = np.arange(len(keys))

    def search(q: np.ndarray, mask: np.ndarray | None, share: float) -> list[int]:
        found = np.asarray(inner(q, mask, share, raw=True), dtype=np.int64)  # type: ignore[call-arg]
        if not len(found):
            return []
        data = (
            table.take_row_ids(rowids[np.sort(found)].tolist())
            .select(["key", "vector", "platform", "timestamp", "channel"])
            .to_arrow()
        )
        rows = row_of[np.asarray([int(k) for k in data.column("key").to_pylist()], dtype=np.int64)]
        vectors = np.asarray(data.column("vector").combine_chunks().flatten(), dtype=np.float32).reshape(
            len(rows), -1
        )
        scores = vectors @ q
        if mask is not None:  # the filter checked on the columns taken (the mask says the same)
            scores[~mask[rows]] = -np.inf
        order = np.argsort(-scores)[:POOL]
        return rows[order[np.isfinite(scores[order])]].tolist()

    search.index = getattr(inner, "index", None)  # type: ignore[attr-defined]
    return search


def built(path: Path, build: Callable[[], None], label: str) -> None:
    if path.exists():
        return
    started, cpu = time.perf_counter(), time.process_time()
    build()
    print(
        f"built {label}: {time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU, "
        f"{path.stat().st_size / 1e6:.0f} MB on disk (load {os.getloadavg()[0]:.1f})",
        flush=True,
    )


def rescored(ids: np.ndarray, matrix: np.ndarray, q: np.ndarray, mask: np.ndarray | None) -> list[int]:
    """The found rows that pass `mask`, ordered by their exact cosine (float32), best POOL."""
    ids = ids[ids >= 0]
    if mask is not None:
        ids = ids[mask[ids]]
    if not len(ids):
        return []
    ids = np.sort(ids)  # in file order: fewer pages touched apart
    scores = matrix[ids] @ q
    return ids[np.argsort(-scores)][:POOL].tolist()


def usearch_engine(cache: Path, matrix: np.ndarray, dtype: str, args: argparse.Namespace) -> Search:
    from usearch.index import Index

    path = cache / f"usearch-{dtype}-m{args.m}.usearch"

    def build() -> None:
        index = Index(ndim=matrix.shape[1], metric="cos", dtype=dtype, connectivity=args.m, expansion_add=128)
        step = 100_000
        for start in range(0, len(matrix), step):
            chunk = np.ascontiguousarray(matrix[start : start + step])
            index.add(
                np.arange(start, start + len(chunk), dtype=np.uint64), chunk, threads=args.build_threads
            )
            print(
                f"  usearch {dtype}: {start + len(chunk):,} rows in (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
        index.save(str(path))

    built(path, build, f"usearch HNSW {dtype} M={args.m}")
    before = rss_mb()
    index = Index.restore(str(path), view=True)
    after = rss_mb()
    grew = (after[0] - before[0], after[1] - before[1])
    print(f"  usearch {dtype} opened as a view: +{grew[0]:.0f} MB anon, +{grew[1]:.0f} MB file")

    def search(q: np.ndarray, mask: np.ndarray | None, share: float, raw: bool = False) -> list[int]:
        count = POOL if mask is None else min(args.max_fetch, math.ceil(POOL * args.oversample / share))
        count = max(count, 2 * POOL)  # 2 x the pool re-scored, as LanceDB's refine factor 2 does
        found = np.asarray(index.search(q, count, threads=1).keys, dtype=np.int64)
        if raw:
            return found.tolist()
        return rescored(found, matrix, q, mask)

    search.index = index  # type: ignore[attr-defined]
    return search


def faiss_engine(cache: Path, matrix: np.ndarray, kind: str, args: argparse.Namespace) -> Search:
    import faiss

    faiss.omp_set_num_threads(args.build_threads)
    spec = f"IVF{args.nlist},SQ8" if kind == "ivf" else f"HNSW{args.m},SQ8"
    path = cache / f"faiss-{spec.replace(',', '-')}.index"

    def build() -> None:
        index = faiss.index_factory(matrix.shape[1], spec, faiss.METRIC_INNER_PRODUCT)
        sample = matrix[
            np.random.default_rng(0).choice(len(matrix), min(len(matrix), 256 * args.nlist), replace=False)
        ]
        index.train(np.ascontiguousarray(sample))
        if kind == "hnsw":
            index.hnsw.efConstruction = 128
        for start in range(0, len(matrix), 100_000):
            index.add(np.ascontiguousarray(matrix[start : start + 100_000]))
        faiss.write_index(index, str(path))

    built(path, build, f"faiss {spec}")
    before = rss_mb()
    index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
    after = rss_mb()
    grew = (after[0] - before[0], after[1] - before[1])
    print(f"  faiss {spec} opened (mmap flag): +{grew[0]:.0f} MB anon, +{grew[1]:.0f} MB file")
    faiss.omp_set_num_threads(1)
    selectors: dict[int, tuple[np.ndarray, object]] = {}

    def search(
        q: np.ndarray, mask: np.ndarray | None, share: float, raw: bool = False, nprobe: int = 40
    ) -> list[int]:
        if kind == "ivf":
            params = faiss.SearchParametersIVF(nprobe=nprobe)
        else:
            params = faiss.SearchParametersHNSW(efSearch=args.ef)
        if mask is not None:
            # Built once per filter here; the app would build it once per filter and cache it.
            if id(mask) not in selectors:
                bits = np.packbits(mask, bitorder="little")  # kept alive beside the selector
                selectors[id(mask)] = (bits, faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bits)))
            params.sel = selectors[id(mask)][1]
        # 2 x the pool re-scored, as LanceDB's refine factor 2 does.
        _, ids = index.search(q[None, :], 2 * POOL, params=params)
        return ids[0].tolist() if raw else rescored(ids[0], matrix, q, mask)

    return search


def lance_engine(lance: Path, args: argparse.Namespace) -> Search:
    from app.core.index.ann import NPROBES, refine_factor

    db = lancedb.connect(str(lance))
    table = db.open_table(next(n for n in db.list_tables().tables if n.startswith(TABLE_PREFIX)))
    keys = np.load(args.cache / "keys.npy")
    row_of = np.empty(keys.max() + 1, dtype=np.int64)
    row_of[keys] = np.arange(len(keys))
    where_of: dict[int, str] = {}

    def search(q: np.ndarray, mask: np.ndarray | None, share: float) -> list[int]:
        query = (
            table.search(q)
            .distance_type("cosine")
            .limit(POOL)
            .nprobes(NPROBES)
            .refine_factor(refine_factor(POOL))
        )
        if mask is not None:
            query = query.where(where_of[id(mask)], prefilter=True)
            if share * len(keys) <= 30_000:
                query = query.maximum_nprobes(0)
        got = query.select(["key", "_distance"]).to_arrow()
        return [int(row_of[int(k)]) for k in got.column("key").to_pylist()]

    search.where_of = where_of  # type: ignore[attr-defined]
    return search


def exact_top(
    cache: Path,
    matrix: np.ndarray,
    queries: list[np.ndarray],
    filters: list[tuple[str, np.ndarray | None, str]],
) -> dict[str, list[list[int]]]:
    """Per filter, each question's exact top POOL rows (NumPy over every row; kept in `cache`)."""
    path = cache / f"truth-{len(queries)}.npy"
    if path.exists():
        kept = np.load(path)
        return {label: kept[n].tolist() for n, (label, _, _) in enumerate(filters)}
    scores = np.asarray(matrix) @ np.stack(queries).T  # rows x questions, once
    out = np.empty((len(filters), len(queries), POOL), dtype=np.int64)
    for n, (_, mask, _) in enumerate(filters):
        for i in range(len(queries)):
            column = scores[:, i] if mask is None else np.where(mask, scores[:, i], -np.inf)
            top = np.argpartition(-column, POOL)[:POOL]
            out[n, i] = top[np.argsort(-column[top])]
    np.save(path, out)
    return {label: out[n].tolist() for n, (label, _, _) in enumerate(filters)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lance", type=Path, required=True, help="a COPY of an archive's vectors.lance")
    parser.add_argument("--cache", type=Path, required=True, help="scratch dir for the dump and the indexes")
    parser.add_argument("--engines", default="lance,usearch-i8,usearch-f16,faiss-ivf,faiss-hnsw")
    parser.add_argument("--queries", type=int, default=98)
    parser.add_argument("--m", type=int, default=16, help="HNSW connectivity")
    parser.add_argument("--ef", type=int, default=128, help="faiss HNSW efSearch")
    parser.add_argument("--expansion", default="64,128", help="usearch expansion_search values")
    parser.add_argument("--nlist", type=int, default=1000)
    parser.add_argument("--nprobe", default="40,80", help="faiss IVF probes (comma-separated)")
    parser.add_argument(
        "--oversample", type=float, default=1.5, help="usearch: POOL × this / share rows asked"
    )
    parser.add_argument("--max-fetch", type=int, default=4000)
    parser.add_argument(
        "--min-share", type=float, default=0.02, help="usearch: narrower filters not answered"
    )
    parser.add_argument(
        "--take", action="store_true", help="usearch: also re-score from LanceDB (the app's cost)"
    )
    parser.add_argument(
        "--prefix", type=int, default=0, help="only the first N rows (not with lance, --take)"
    )
    parser.add_argument("--passes", type=int, default=1, help="measure each variant this many times")
    parser.add_argument("--build-threads", type=int, default=2)
    args = parser.parse_args()
    if not locomo_corpus.available():
        print("skipped: ../shared/data is missing")
        return 0
    args.cache.mkdir(parents=True, exist_ok=True)
    dump(args.lance, args.cache)
    matrix = np.load(args.cache / "vectors.npy", mmap_mode="r")
    rows = args.prefix or len(matrix)
    matrix = matrix[:rows]
    embedder = build_embedder(EmbeddingSettings())
    queries = [embedder.embed_query(q).astype(np.float32) for q in locomo_corpus.queries(98)[: args.queries]]
    archived = np.load(args.cache / "archived.npy")[:rows]
    platform = np.load(args.cache / "platform.npy")[:rows]
    channel = np.load(args.cache / "channel.npy")[:rows]
    stamp = np.load(args.cache / "timestamp.npy")[:rows]
    # Truth and indexes of a prefix live apart from the whole table's.
    work = args.cache / f"prefix-{rows}" if args.prefix else args.cache
    work.mkdir(exist_ok=True)
    lo, hi = np.quantile(stamp, [0.60, 0.65])
    names, counts = np.unique(channel, return_counts=True)
    busiest = str(names[np.argmax(counts)])
    filters: list[tuple[str, np.ndarray | None, str]] = [
        ("no filter", None, ""),
        ("platform slack", platform == "slack", "platform = 'slack'"),
        ("date range 5 %", (stamp >= lo) & (stamp < hi), f"timestamp >= {int(lo)} AND timestamp < {int(hi)}"),
        ("one channel", channel == busiest, f"channel = '{busiest}'"),
    ]
    truth = exact_top(work, matrix, queries, filters)
    print(
        f"{len(matrix):,} rows, {len(queries)} questions, {int(archived.sum())} archived (not filtered); "
        + ", ".join(f"{label}: {int(mask.sum()):,} rows" for label, mask, _ in filters if mask is not None),
        flush=True,
    )
    print("| engine | filter | Recall@10 | Recall@30 | CPU p50 / p95 ms | wall p50 / p95 ms | load |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in args.engines.split(","):
        variants: list[tuple[str, Search]] = []
        package = name.split("-")[0]
        if package in ("usearch", "faiss") and importlib.util.find_spec(package) is None:
            print(f"| {name} | (not installed: pip install usearch faiss-cpu) | | | | | |")
            continue
        if name == "lance":
            engine = lance_engine(args.lance, args)
            for _, mask, where in filters:
                if mask is not None:
                    engine.where_of[id(mask)] = where  # type: ignore[attr-defined]
            variants.append(("LanceDB IVF_SQ 1k, 80 probes, refine", engine))
        elif name.startswith("usearch-"):
            engine = usearch_engine(work, matrix, name.split("-")[1], args)
            for expansion in (int(e) for e in args.expansion.split(",")):

                def at(
                    q: np.ndarray,
                    mask: np.ndarray | None,
                    share: float,
                    raw: bool = False,
                    e: int = expansion,
                    s: Any = engine,
                ) -> list[int]:
                    s.index.expansion_search = e
                    return s(q, mask, share, raw)

                variants.append((f"usearch HNSW {name.split('-')[1]} M={args.m} ef={expansion}", at))
                if args.take:
                    variants.append(
                        (
                            f"usearch HNSW {name.split('-')[1]} M={args.m} ef={expansion} + LanceDB take",
                            taken(args.lance, args.cache, at),
                        )
                    )
        elif name.startswith("faiss-"):
            kind = name.split("-")[1]
            engine = faiss_engine(work, matrix, kind, args)
            for nprobe in (int(p) for p in args.nprobe.split(",")) if kind == "ivf" else (0,):
                label = (
                    f"faiss IVF{args.nlist},SQ8 nprobe {nprobe}"
                    if kind == "ivf"
                    else f"faiss HNSW{args.m},SQ8 ef {args.ef}"
                )
                probed = functools.partial(engine, nprobe=nprobe) if kind == "ivf" else engine
                variants.append((label, probed))
                if args.take:
                    variants.append((f"{label} + LanceDB take", taken(args.lance, args.cache, probed)))
        if args.prefix and (name == "lance" or args.take):
            print(f"| {name} | (the whole table only: no --prefix, no --take) | | | | | |")
            continue
        for label, search in [v for v in variants for _ in range(args.passes)]:
            for flabel, mask, _ in filters:
                share = float(mask.mean()) if mask is not None else 1.0
                if label.startswith("usearch") and share < args.min_share:
                    print(f"| {label} | {flabel} | (too narrow: LanceDB's prefilter) | | | | |")
                    continue
                search(queries[0], mask, share)  # warm
                r10 = r30 = 0.0
                cpus, walls = [], []
                for n, q in enumerate(queries):
                    started, cpu = time.perf_counter(), time.process_time()
                    found = search(q, mask, share)
                    walls.append((time.perf_counter() - started) * 1000)
                    cpus.append((time.process_time() - cpu) * 1000)
                    want = truth[flabel][n]
                    r10 += len(set(found[:10]) & set(want[:10])) / 10
                    r30 += len(set(found) & set(want)) / POOL
                cpus.sort()
                walls.sort()
                p95 = int(0.95 * (len(cpus) - 1))
                print(
                    f"| {label} | {flabel} | {r10 / len(queries):.3f} | {r30 / len(queries):.3f} | "
                    f"{statistics.median(cpus):.2f} / {cpus[p95]:.2f} | "
                    f"{statistics.median(walls):.2f} / {walls[p95]:.2f} | "
                    f"{os.getloadavg()[0]:.1f} |",
                    flush=True,
                )
        anon, mapped = rss_mb()
        print(f"  after {name}: RSS {anon:.0f} MB anon, {mapped:.0f} MB file-backed", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
