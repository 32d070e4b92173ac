"""What erasing a deleted message from LanceDB's files costs on a real archive (one deletion).

Run on a COPY of an archive (the deletions are real):
    cp -a /tmp/q9/s/locomo-100000 /tmp/erase/s100k
    .venv/bin/python tests/benchmarks/bench_erase.py /tmp/erase/s100k [--deletions 2] [--baseline]

Each deletion goes through `DeletionService.delete` as the app runs it; the figures split the
erasure's own part (`VectorErasure.run`: the fragments rewritten, then `purge_history`) from the
rest. `--baseline` first deletes one message without the erasure (what main did: compaction and
old versions dropped only), for comparison in the same process. After each deletion the deleted
vectors' float32 bytes are searched for in every file of the LanceDB directory. CPU seconds count
every thread of the process (LanceDB writes on its own threads); the load average is printed
since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np
from sqlalchemy import select

from app.bootstrap import build_services
from app.core.index.message_keys import key_of
from app.core.storage.messages import vector_key
from app.core.storage.models import RawMessageRow


def holders(root: Path, needles: list[bytes]) -> int:
    """How many of the needles some file under root still holds (reads each file once)."""
    left = set(needles)
    found = 0
    for path in root.rglob("*"):
        if path.is_file() and left:
            data = path.read_bytes()
            hit = {n for n in left if n in data}
            found += len(hit)
            left -= hit
    return found


def stored(svc, target: int) -> list[bytes]:
    vectors = list(svc.processor.collection.vectors_of([vector_key(target)]).values())
    if svc.memory.keys is not None:
        keys = [key_of(target, n) for n in range(12)]
        vectors += list(svc.memory.keys.corpus.collection.vectors_of(keys).values())
    return [np.asarray(v, dtype=np.float32).tobytes() for v in vectors]


def in_indexes(svc) -> str:
    """Per table: the vector index's coverage and segments (a rewrite that re-indexed instead of
    remapping would add a segment, and the old one would keep the deleted rows' codes)."""
    parts = []
    for collection in tables_of(svc):
        cover = [
            (i.num_indexed_rows, i.num_unindexed_rows, i.num_segments)
            for i in collection.table.list_indices()
            if i.index_type.startswith("Ivf")
        ]
        parts.append(f"{collection.name.split('__')[0]}: indexed, unindexed, segments {cover}")
    return "; ".join(parts)


def tables_of(svc) -> list:
    tables = [svc.processor.collection]
    if svc.memory.keys is not None:
        tables.append(svc.memory.keys.corpus.collection)
    return tables


def shape(collection) -> str:
    meta = collection.table.list_versions()[-1]["metadata"]
    masked = meta["total_deletion_file_rows"]
    return f"{meta['total_fragments']} fragment(s), {meta['total_rows']} rows, {masked} masked"


def one(svc, target: int, vectors_dir: Path, *, erase: bool) -> None:
    needles = stored(svc, target)
    deletion = svc.memory.deletion
    erasure = deletion.erasure
    if not erase:
        deletion.erasure = None
    timing: dict[str, float] = {}
    if erase and erasure is not None:
        run = erasure.run

        def timed_run(*args, **kwargs):
            started, cpu = time.perf_counter(), time.process_time()
            result = run(*args, **kwargs)
            timing["wall"], timing["cpu"] = time.perf_counter() - started, time.process_time() - cpu
            timing["fragments"] = result.fragments
            return result

        erasure.run = timed_run
    started, cpu = time.perf_counter(), time.process_time()
    report = deletion.delete([target])
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    deletion.erasure = erasure
    if erase and erasure is not None:
        del erasure.run  # the class's method again
    left = holders(vectors_dir, needles)
    label = "with erasure" if erase else "baseline (no erasure)"
    print(
        f"{label}: message {target}: {wall:.2f} s wall, {cpu:.2f} s CPU in all; "
        f"erasure {timing.get('wall', 0):.2f} s wall, {timing.get('cpu', 0):.2f} s CPU, "
        f"{int(timing.get('fragments', 0))} fragment(s) rewritten; vectorsErased={report.vectors_erased}; "
        f"{left} of {len(needles)} deleted vector(s) still in a file; load {os.getloadavg()[0]:.1f}"
    )
    print(f"  index: {in_indexes(svc)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--deletions", type=int, default=2)
    parser.add_argument("--baseline", action="store_true")
    args = parser.parse_args()
    svc = build_services(data_dir=args.data_dir)
    try:
        with svc.db.read() as session:
            ids = list(session.scalars(select(RawMessageRow.id).order_by(RawMessageRow.id)))
        picks = [ids[len(ids) * (k + 1) // (args.deletions + 2)] for k in range(args.deletions + 1)]
        tables = tables_of(svc)
        for t in tables:
            print(f"{t.name}: {shape(t)}")
        if args.baseline:
            one(svc, picks.pop(), svc.vectors.path, erase=False)
        for target in picks[: args.deletions]:
            one(svc, target, svc.vectors.path, erase=True)
        for t in tables:
            print(f"{t.name}: {shape(t)}")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS {peak:.0f} MB; load {os.getloadavg()}")
    finally:
        svc.close()


if __name__ == "__main__":
    main()
