"""Searchable before embedded: time until an N-message import is keyword-searchable, and until embedded.

    python tests/benchmarks/bench_backlog.py [--n 100000] [--embed-seconds S] [--embedder local|hashing]

The import stores N synthetic messages with deferred embedding (as every import does), while the
backlog worker embeds in the background. Reported: seconds until every message is stored and a
word only the last message holds is found by search; then the drain's rate, and the seconds
until the backlog is empty (or, with `--embed-seconds`, the rate over that window and the time
the rest would take at it, marked as extrapolated). Also the bare model's rate on the same
documents in the same process, so the ratio shows how much of the model's time the pipeline
keeps busy. Load average is printed with every figure (the machine is shared).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.settings import EmbeddingSettings, Settings
from tests.benchmarks.synthetic import messages

MARKER = "xylophonist"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} {five:.1f} {fifteen:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--embed-seconds", type=float, default=None, help="stop waiting after S seconds")
    parser.add_argument("--embedder", default="local", choices=["local", "hashing"])
    parser.add_argument("--pipeline-check", type=int, default=0, help="also compare drain vs serial on N")
    args = parser.parse_args()
    settings = Settings(
        data_dir=Path(tempfile.mkdtemp(prefix="strata-bench-backlog-")),
        embedding=EmbeddingSettings(provider=args.embedder),
    )
    services = build_services(settings)
    batch = messages(args.n)
    batch[-1] = dataclasses.replace(batch[-1], content=f"{batch[-1].content} {MARKER}")
    services.embedder.embed_query("warm-up")  # model load is not import time
    print(f"{args.n} messages, embedder {services.embedder.model_id}, {load()}")

    started = time.perf_counter()
    result = services.memory.ingest(batch, defer_embedding=True)
    stored = time.perf_counter() - started
    hits = services.memory.search(MARKER, limit=1, loose=True)
    searchable = time.perf_counter() - started
    assert hits and MARKER in hits[0].content, "the last message is not keyword-searchable"
    status = services.processor.backlog.status()
    print(
        f"stored {result.imported} in {stored:.1f} s ({result.imported / stored:.0f}/s); keyword-searchable "
        f"after {searchable:.1f} s; already embedded meanwhile {args.n - status.pending}; {load()}"
    )

    at_store = args.n - status.pending
    stored_at = time.perf_counter()
    status = services.processor.backlog.wait(timeout_s=args.embed_seconds)
    elapsed = time.perf_counter() - started
    after_store = (args.n - status.pending - at_store) / (time.perf_counter() - stored_at)
    print(f"embedding alone (after storing ended): {after_store:.1f}/s; {load()}")
    embedded = args.n - status.pending
    rate = embedded / elapsed if elapsed > 0 else 0.0
    if status.pending:
        print(
            f"after {elapsed:.0f} s: {embedded} embedded ({rate:.1f}/s over the whole run), "
            f"{status.pending} left; fully embedded after ~{elapsed + status.pending / rate:.0f} s "
            f"(extrapolated); {load()}"
        )
    else:
        print(f"fully embedded after {elapsed:.1f} s ({rate:.1f}/s); {load()}")
    services.processor.backlog.close()

    # The bare model on the same documents, same process: what the pipeline could at best reach.
    sample = min(embedded or 2000, 3000)
    with services.db.read() as session:
        docs = services.processor.source.documents(session, [str(i) for i in range(1, sample + 1)])
    began = time.perf_counter()
    services.embedder.embed_documents([d.document for d in docs])
    bare = len(docs) / (time.perf_counter() - began)
    print(
        f"bare model on {len(docs)} of the same documents: {bare:.1f}/s; "
        f"pipeline ÷ bare {rate / bare:.2f}; {load()}"
    )
    services.close()
    if args.pipeline_check:
        pipeline_check(args.pipeline_check, args.embedder)
    return 0


def pipeline_check(n: int, embedder: str) -> None:
    """The pipelined drain against the serial path (read, embed, write, stamp, one batch at a
    time) on the same N stored messages, alternating, in one process."""
    rates: dict[str, list[float]] = {"pipelined drain": [], "serial": []}
    for _ in range(2):
        for name in rates:
            settings = Settings(
                data_dir=Path(tempfile.mkdtemp(prefix="strata-bench-pipeline-")),
                embedding=EmbeddingSettings(provider=embedder),
            )
            svc = build_services(settings)
            svc.embedder.embed_query("warm-up")
            svc.memory.ingest(messages(n, seed=len(rates[name]) + 3), defer_embedding=True)
            svc.processor.backlog.close()  # stop the worker: the timed run below does the work
            with svc.db.read() as session:
                ids = [int(k) for k in svc.processor.source.pending(session, 0, n)]
            began = time.perf_counter()
            if name == "serial":
                svc.processor.reembed(ids)
            else:
                svc.processor.backlog.drain()
            rates[name].append(len(ids) / (time.perf_counter() - began))
            svc.close()
    for name, values in rates.items():
        print(f"{name}: {', '.join(f'{v:.1f}' for v in values)} msg/s; {load()}")
    ratio = [p / s for p, s in zip(rates["pipelined drain"], rates["serial"], strict=True)]
    print(f"pipelined ÷ serial: {', '.join(f'{r:.2f}' for r in ratio)}")


if __name__ == "__main__":
    raise SystemExit(main())
