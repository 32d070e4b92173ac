"""Stored vectors from the memory-mapped file against LanceDB's take, interleaved in one process.

    .venv/bin/python tests/benchmarks/bench_vector_file.py --data-dir COPY_OF_1M [--rounds 200]

Builds the messages' vector file (time, CPU, bytes a message) unless `--no-build` and one is
there, then times `VectorCollection.vectors_of` with the file and without it, alternately, on
random key sets (60 and 300 keys) and search-shaped ones (keys with their conversation
neighbours: runs of nearby message ids), checks both give the same vectors, and prints RSS with
the file mapped and after the idle release. CPU is the process's (all threads). Note `uptime`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from app.core.storage import vector_file_build
from app.core.storage.vectors import VectorCollection, VectorStore


def rss_mb() -> tuple[float, float]:
    """(RSS, its file-backed part) in MB."""
    status = Path("/proc/self/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in status if ":" in line)
    rss = int(fields["VmRSS"].split()[0]) / 1024
    files = int(fields.get("RssFile", "0 kB").split()[0]) / 1024
    return rss, files


def key_sets(ids: np.ndarray, rounds: int, seed: int) -> dict[str, list[list[str]]]:
    rng = np.random.default_rng(seed)
    sets: dict[str, list[list[str]]] = {"random 60": [], "random 300": [], "search-shaped 250": []}
    for _ in range(rounds):
        sets["random 60"].append([str(k) for k in rng.choice(ids, 60, replace=False)])
        sets["random 300"].append([str(k) for k in rng.choice(ids, 300, replace=False)])
        # ~30 candidates with 8 turns around each: runs of nearby ids, as a search's windows read.
        centres = rng.choice(ids, 28, replace=False)
        shaped = {int(c) + d for c in centres for d in range(-4, 5)}
        sets["search-shaped 250"].append([str(k) for k in sorted(shaped)])
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--collection", default="messages__all_minilm_l6_v2_onnx_int8__384")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--no-build", action="store_true", help="use the file already there")
    args = parser.parse_args()
    print("load:", os.getloadavg())
    store = VectorStore(args.data_dir / "vectors.lance")
    dims = int(args.collection.rsplit("__", 1)[1])
    collection = VectorCollection(store, args.collection, dims, ())
    store._collections[args.collection] = collection  # so the store's release reaches it
    assert collection.exists, f"no table {args.collection}"  # opened, not made anew
    table = collection.table
    rows = table.count_rows()
    print(f"{rows:,} rows, version {table.version}; RSS {rss_mb()[0]:.0f} MB")
    if not args.no_build or not collection.file.path.exists():
        report = vector_file_build.build(table, collection.path, store.files, args.collection, dims)
        assert report is not None and collection.file is not None
        print(
            f"build: {report.seconds:.1f} s wall, {report.cpu_seconds:.1f} s CPU, "
            f"{report.bytes / 1e6:.0f} MB = {report.bytes / rows:.0f} bytes a message; "
            f"RSS after {rss_mb()[0]:.0f} MB (load {os.getloadavg()[0]:.1f})"
        )
    started = time.process_time()
    state = vector_file_build.status(table, store.files, args.collection, collection.path)
    print(f"status: {state.served:,} of {state.rows:,} served ({time.process_time() - started:.2f} s CPU)")
    ids = table.search().select(["key"]).limit(None).to_arrow().column("key").to_numpy().astype(np.int64)
    mapped_file = collection.file
    collection.vectors_of(["1"])  # row-id map built (~0.2 s), outside the timings
    cpu: dict[tuple[str, str], list[float]] = {}
    mismatches = 0
    for name, sets in key_sets(ids, args.rounds, 7).items():
        for keys in sets:
            got = {}
            for arm in ("lancedb", "file") if len(cpu) % 2 == 0 else ("file", "lancedb"):
                collection.file = mapped_file if arm == "file" else None
                t = time.process_time()
                got[arm] = collection.vectors_of(keys)
                cpu.setdefault((name, arm), []).append((time.process_time() - t) * 1000)
            same = got["file"].keys() == got["lancedb"].keys() and all(
                np.array_equal(got["file"][k], got["lancedb"][k]) for k in got["file"]
            )
            mismatches += not same
    collection.file = mapped_file
    print(
        f"vectors_of CPU a call, {args.rounds} calls each, arms alternated (load {os.getloadavg()[0]:.1f}):"
    )
    for name in ("random 60", "random 300", "search-shaped 250"):
        lance, mapped = cpu[(name, "lancedb")], cpu[(name, "file")]
        ratio = statistics.median(mapped) / statistics.median(lance)
        print(
            f"  {name:18s} LanceDB take p50 {statistics.median(lance):6.2f} ms (p95 "
            f"{np.percentile(lance, 95):6.2f}) | file p50 {statistics.median(mapped):6.2f} ms (p95 "
            f"{np.percentile(mapped, 95):6.2f}) | ratio {ratio:.3f}"
        )
    print(f"identical vectors: {'yes' if mismatches == 0 else f'NO ({mismatches} calls differ)'}")
    rss, files = rss_mb()
    print(f"RSS with the file mapped: {rss:.0f} MB ({files:.0f} MB file-backed)")
    store.release()
    rss, files = rss_mb()
    print(f"RSS after the idle release: {rss:.0f} MB ({files:.0f} MB file-backed); load {os.getloadavg()}")


if __name__ == "__main__":
    main()
