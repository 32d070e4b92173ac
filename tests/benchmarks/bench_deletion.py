"""What "deletion means gone" costs (one delete, one bulk delete), and backup / export times.

Run: .venv/bin/python tests/benchmarks/bench_deletion.py [--sizes 10000 50000]

Each delete removes rows, keyword entries, vectors and audit text, then purges: FTS5 'optimize'
(rewrites the keyword index), WAL checkpoint (TRUNCATE) and LanceDB compaction + dropping old
versions. The purge is the part that grows with the archive, so it is reported separately. Messages
are ingested through the real processor with the hashing embedder (the model is not the subject).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.erasure import purge_files
from app.services.deletion_service import MessageSelector

NOW = 1_772_409_600_000
WORDS = [
    "budget",
    "launch",
    "invoice",
    "deploy",
    "review",
    "offsite",
    "travel",
    "design",
    "legal",
    "roadmap",
    "hiring",
    "metrics",
]


def messages(n: int) -> list[RawMessage]:
    return [
        RawMessage(
            platform="slack",
            message_id=f"m{i}",
            channel=f"c{i % 20}",
            person=f"p{i % 11}",
            timestamp=NOW - (n - i) * 60_000,
            content=" ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 12)) + f" item {i}",
        )
        for i in range(n)
    ]


def bench(size: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), embedding=EmbeddingSettings(provider="hashing"))
        svc = build_services(settings, clock=FixedClock(NOW), embedder=HashingEmbedder())
        try:
            svc.memory.ingest(messages(size))
            started = time.perf_counter()
            svc.memory.delete(size // 2)
            one = time.perf_counter() - started
            started = time.perf_counter()
            purge_files(svc.db)
            svc.processor.collection.purge_history()
            purge = time.perf_counter() - started
            started = time.perf_counter()
            report = svc.memory.deletion.delete_matching(MessageSelector(channel="c3"))
            bulk = time.perf_counter() - started
            assert svc.exports is not None
            started = time.perf_counter()
            svc.exports.backup(Path(tmp) / "backup")
            backup = time.perf_counter() - started
            started = time.perf_counter()
            svc.exports.export(Path(tmp) / "export")
            export = time.perf_counter() - started
        finally:
            svc.close()
    load = os.getloadavg()[0]
    print(
        f"{size:>7} msgs: delete one {one * 1000:7.0f} ms (purge alone {purge * 1000:6.0f} ms), "
        f"bulk {len(report.deleted)} msgs {bulk * 1000:7.0f} ms; backup {backup:5.2f} s, "
        f"export {export:5.2f} s   [load {load:.2f}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    args = parser.parse_args()
    for size in args.sizes:
        bench(size)


if __name__ == "__main__":
    main()
