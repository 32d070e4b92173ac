"""What LanceDB's `optimize` does to a freshly built message index: CPU a vector-leg search before
and after, interleaved against an untouched copy so the machine's load moves both alike.

    python tests/benchmarks/bench_index_rewrite.py SUBJECT_DIR REFERENCE_DIR [--queries 80] [--rebuild]

Both are copies of one data dir whose message index was built and never optimized since (e.g. a
`bench_search.py --workdir` 1M dir: `locomo-bulk-1000000`). SUBJECT_DIR is changed: `optimize()`
runs on it (what a refresh, a compaction after an embedding drain, a deletion's purge and
`vector_prune` call), then, with `--rebuild`, the index is trained anew on the result (as the
app's job builds it now) and `optimize()` runs once more, as the app's next refresh or purge would.
The reference is only read. Queries are stored vectors plus a little noise; no filter, 30 rows
asked. Each step also prints the index's IVF partitions (LanceDB's `analyze_plan`, one query probing
them all) and the partition size it records (`target_partition_size`: None for an index that
`optimize` re-partitions to LanceDB's own target).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.index.ann import VECTOR_INDEX, AnnIndex
from app.core.index.filters import Filter
from app.core.storage.vectors import VectorStore

COLUMNS = ("user_id", "platform", "channel", "person", "tier", "timestamp", "archived")
MODEL, DIMENSIONS = "all-MiniLM-L6-v2-onnx-int8", 384


def open_index(data_dir: Path) -> AnnIndex:
    collection = VectorStore(data_dir / "vectors.lance").collection("messages", MODEL, DIMENSIONS, COLUMNS)
    if not collection.exists:
        raise SystemExit(f"{data_dir} has no message vectors of {MODEL}")
    return AnnIndex(collection)


def compare(label: str, subject: AnnIndex, reference: AnnIndex, queries: list[np.ndarray]) -> None:
    cpu: dict[str, list[float]] = {"subject": [], "reference": []}
    for query in queries[:5]:
        subject.search(query, 30, Filter(()))
        reference.search(query, 30, Filter(()))
    for n, query in enumerate(queries):
        pair = [("subject", subject), ("reference", reference)]
        for name, index in pair if n % 2 else pair[::-1]:
            started = time.process_time()
            index.search(query, 30, Filter(()))
            cpu[name].append((time.process_time() - started) * 1000)
    s, r = statistics.median(cpu["subject"]), statistics.median(cpu["reference"])
    print(
        f"{label}: CPU a search p50 {s:.1f} ms against {r:.1f} ms untouched ({s / r:.2f}x); "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def describe(label: str, index: AnnIndex, query: np.ndarray) -> None:
    """The index's IVF partitions (ranked by one query probing them all) and recorded target."""
    table = index.collection.table
    plan = table.search(query).distance_type("cosine").nprobes(1_000_000).limit(10).analyze_plan()
    ranked = re.search(r"partitions_ranked=([\d.]+ ?K?)", plan)
    deltas = re.search(r"deltas=(\d+)", plan)
    config = next((ix for ix in table.list_indices() if ix.name == VECTOR_INDEX), None)
    target = (config.index_details or {}).get("target_partition_size") if config else None
    print(
        f"{label}: partitions {ranked.group(1) if ranked else '?'} over {deltas.group(1) if deltas else '?'} "
        f"segment(s), recorded partition size {target}, keeps partitions: {index.keeps_partitions()}",
        flush=True,
    )


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("subject", type=Path)
    parser.add_argument("reference", type=Path)
    parser.add_argument("--queries", type=int, default=80)
    parser.add_argument("--rebuild", action="store_true", help="train the index anew after the optimize")
    args = parser.parse_args()
    subject, reference = open_index(args.subject), open_index(args.reference)
    rng = np.random.default_rng(0)
    keys = reference.collection.table.search().select(["key"]).limit(args.queries).to_arrow()
    stored = reference.collection.vectors_of(keys.column("key").to_pylist())
    queries = [v + rng.normal(0, 0.05, DIMENSIONS).astype(np.float32) for v in stored.values()]
    queries = [(q / np.linalg.norm(q)).astype(np.float32) for q in queries]
    describe("reference", reference, queries[0])
    describe("subject as found", subject, queries[0])
    compare("as found", subject, reference, queries)
    optimize(subject)
    describe("after optimize()", subject, queries[0])
    compare("after optimize()", subject, reference, queries)
    if args.rebuild:
        started = time.perf_counter()
        subject.build()
        print(f"index trained anew: {time.perf_counter() - started:.1f} s", flush=True)
        describe("trained anew", subject, queries[0])
        compare("trained anew", subject, reference, queries)
        optimize(subject)
        describe("trained anew, then optimize()", subject, queries[0])
        compare("trained anew, then optimize()", subject, reference, queries)


def optimize(index: AnnIndex) -> None:
    started, cpu = time.perf_counter(), time.process_time()
    index.collection.optimize()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"optimize(): {wall:.1f} s, {cpu:.1f} s CPU", flush=True)


if __name__ == "__main__":
    main()
