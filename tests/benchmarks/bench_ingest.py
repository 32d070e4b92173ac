"""Ingest throughput: the full processor on N synthetic messages vs the bare embedder on the same texts.

Both runs embed exactly the same AAAK documents in the same process, so the ratio
(ingest msgs/s ÷ bare-embedder msgs/s) shows what storage, indexing and bookkeeping cost.

    python tests/benchmarks/bench_ingest.py [--n 20000] [--embedder local|hashing]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core import aaak
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks.synthetic import messages


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--embedder", default="local", choices=["local", "hashing"])
    args = parser.parse_args()
    settings = Settings(
        data_dir=Path(tempfile.mkdtemp(prefix="strata-bench-ingest-")),
        embedding=EmbeddingSettings(provider=args.embedder),
    )
    services = build_services(settings)
    batch = messages(args.n)
    docs = [
        aaak.encode_record(
            content=m.content,
            timestamp=m.timestamp,
            tier="short",
            platform=m.platform,
            channel=m.channel,
            person=m.person,
        ).document
        for m in batch
    ]
    services.embedder.embed_documents(docs[:64])  # load the model outside both timings

    started = time.perf_counter()
    for i in range(0, len(docs), 256):
        services.embedder.embed_documents(docs[i : i + 256])
    bare = time.perf_counter() - started

    last = [0.0]

    def progress(done: int, total: int | None) -> None:
        now = time.perf_counter()
        if now - last[0] > 10:
            last[0] = now
            print(f"  … {done}/{total} ({done / (now - started):.0f} msg/s)", flush=True)

    started = time.perf_counter()
    result = services.memory.ingest(batch, progress=progress, total=len(batch))
    full = time.perf_counter() - started
    assert result.imported == len(batch), result.to_dict()
    print(f"embedder      {services.embedder.model_id}")
    print(f"messages      {len(batch)}")
    print(f"bare embedder {len(batch) / bare:8.1f} msg/s ({bare:.1f} s)")
    print(f"full ingest   {len(batch) / full:8.1f} msg/s ({full:.1f} s)")
    print(f"ratio         {bare / full:8.3f}  (goal >= 0.8)")
    keys = services.memory.keys
    if keys is not None:
        # Sentence keys are built after the ingest call returns (in the background, once the
        # messages' own vectors exist), so they are outside the ratio above; here is their cost.
        cpu, started = time.process_time(), time.perf_counter()
        status = keys.wait(timeout_s=3600)
        built = time.perf_counter() - started
        count = keys.corpus.collection.count()
        print(
            f"sentence keys {count} ({count / len(batch):.2f} per message) built in the background "
            f"in {built:.1f} s after the ingest ({built / full:.2f} of its time; "
            f"{time.process_time() - cpu:.1f} s CPU; pending {status.pending})"
        )
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
