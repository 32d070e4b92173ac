"""Search latency p50/p95 (query embedding included, warm) at 10k and 100k messages.

Embedding 100k messages with the local model takes ~20 minutes on 2 cores, so the index is
built from real model vectors of a 3,000-message sample, reused with small noise for the rest
(`RecycledEmbedder`); queries are embedded by the real model inside the timed call.

    python tests/benchmarks/bench_search.py [--sizes 10000,100000] [--embedder local|hashing]
        [--corpus synthetic|locomo] [--workdir DIR] [--compare FIELD=VALUE]

`--corpus synthetic` (the default) is a worst case for keyword search: ~150 distinct words, so
every query word matches 10-20 % of all messages. `--corpus locomo` grows the corpus from
LoCoMo's real turns (real word frequencies) and asks LoCoMo's questions; it needs
`../shared/data`. `--workdir` keeps the built index there and reuses it on the next run.
`--compare neighbour_candidates=0` also times the same queries with that search setting
(`SearchConfig` field), interleaved query by query in the same process, and prints the ratio:
on a shared machine the load moves both columns alike.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.domain import RawMessage
from app.core.embeddings.base import Embedder
from app.core.embeddings.factory import build_embedder
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks import locomo_corpus, locomo_data, synthetic


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


def run(size: int, provider: str, corpus_name: str, workdir: Path | None, compare: str | None = None) -> None:
    data_dir = workdir / f"{corpus_name}-{size}" if workdir else None
    reuse = data_dir is not None and (data_dir / "strata.sqlite3").exists()
    settings = Settings(
        data_dir=data_dir or Path(tempfile.mkdtemp(prefix=f"strata-bench-search-{size}-")),
        embedding=EmbeddingSettings(provider=provider),
    )
    real = build_embedder(settings.embedding)
    batch, queries = corpus(corpus_name, size)
    if reuse:
        services = build_services(settings, embedder=real)
        print(f"[{size}] reusing the index in {settings.data_dir}")
    else:
        embedder = RecycledEmbedder(real, [m.content for m in batch[:3000]])
        services = build_services(settings, embedder=embedder)
        started = time.perf_counter()
        services.processor.batch_size = 2000
        services.memory.ingest(batch)
        services.processor.collection.optimize()
        print(f"[{size}] built index in {time.perf_counter() - started:.0f}s")
    for q in queries[:10]:
        services.memory.search(q + " warmup", limit=10)
    searcher = services.memory.searcher
    configs = {"default": searcher.config}
    if compare:
        name, _, value = compare.partition("=")
        typed = type(getattr(searcher.config, name))(value)
        configs[compare] = dataclasses.replace(searcher.config, **{name: typed})
    latencies: dict[str, list[float]] = {label: [] for label in configs}
    for q in queries:
        for label, config in configs.items():
            searcher.config = config
            # The query embedding is cached: each setting gets its own spelling of the query.
            text = q if label == "default" else f"{q} ?"
            started = time.perf_counter()
            services.memory.search(text, limit=10)
            latencies[label].append((time.perf_counter() - started) * 1000)
    load = os.getloadavg()[0]
    for label, values in latencies.items():
        print(
            f"[{size}, {corpus_name}, {label}] {len(values)} queries: "
            f"p50 {statistics.median(values):.1f} ms, "
            f"p95 {percentile(values, 0.95):.1f} ms, max {max(values):.1f} ms (load {load:.1f})"
        )
    if compare:
        base, other = latencies["default"], latencies[compare]
        print(
            f"ratio default / {compare}: p50 {statistics.median(base) / statistics.median(other):.2f}, "
            f"p95 {percentile(base, 0.95) / percentile(other, 0.95):.2f}"
        )
    services.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--embedder", default="local", choices=["local", "hashing"])
    parser.add_argument("--corpus", default="synthetic", choices=["synthetic", "locomo"])
    parser.add_argument("--workdir", type=Path, default=None, help="keep and reuse built indexes here")
    parser.add_argument("--compare", default=None, help="also time with FIELD=VALUE of SearchConfig")
    args = parser.parse_args()
    if args.corpus == "locomo" and not locomo_corpus.available():
        print(f"skipped: {locomo_data.DATA} is missing (the locomo corpus is grown from it)")
        return 0
    for size in (int(s) for s in args.sizes.split(",")):
        run(size, args.embedder, args.corpus, args.workdir, args.compare)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
