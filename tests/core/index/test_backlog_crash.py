"""Killing a process mid-backlog loses nothing: the next start embeds the rest, each row once.

A real process importing a JSONL file (as `strata import jsonl` does) stores 1,500 messages and
starts embedding them with a slow test model; it is killed (SIGKILL) once part of the backlog
has vectors. Another process then finds every message keyword-searchable, and its drain (after
the dead drainer's claim expires) embeds exactly the rows that had no vector.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.lease import DEFAULT_TTL_MS
from app.core.settings import Settings
from tests.conftest import PROJECT_ROOT

IMPORTER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from app.bootstrap import build_services
    from app.core.embeddings.hashing import HashingEmbedder
    from app.core.jsonl import parse_jsonl
    from app.core.settings import EmbeddingSettings, Settings

    class Slow(HashingEmbedder):  # ~3 ms a message: the drain is still busy when the kill comes
        def embed_documents(self, texts):
            time.sleep(0.003 * len(texts))
            return super().embed_documents(texts)

    settings = Settings(data_dir=Path(sys.argv[1]), embedding=EmbeddingSettings(provider="hashing"))
    svc = build_services(settings, embedder=Slow())
    with open(sys.argv[2], "rb") as handle:  # what `strata import jsonl` does
        svc.memory.ingest(parse_jsonl(handle, default_user="local"), defer_embedding=True)
    svc.processor.backlog.wait()
    """
)


@pytest.mark.slow
def test_a_killed_import_resumes_embedding_on_the_next_start(settings: Settings, tmp_path: Path) -> None:
    source = tmp_path / "history.jsonl"
    lines = [
        {
            "platform": "slack",
            "message_id": f"k{i}",
            "channel": "general",
            "person": "anna",
            "timestamp": 1_700_000_000_000 + i * 1000,
            "content": f"ledger entry {i} for the quarterly review" + (" okapi" if i == 1234 else ""),
        }
        for i in range(1500)
    ]
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    build_services(settings, embedder=HashingEmbedder()).close()  # create the data dir
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    importer = subprocess.Popen(
        [sys.executable, "-c", IMPORTER, str(settings.data_dir), str(source)], cwd=PROJECT_ROOT, env=env
    )
    watcher = build_services(settings, embedder=HashingEmbedder())
    try:
        deadline = time.time() + 120
        while True:  # wait until the import is stored and its drain has embedded some of it
            assert importer.poll() is None, "the import finished before it could be killed"
            assert time.time() < deadline
            stats = watcher.memory.stats()
            if stats["messages"] == 1500 and 0 < stats["vectors"] < 1000:
                break
            time.sleep(0.02)
        os.kill(importer.pid, signal.SIGKILL)
        importer.wait(timeout=30)
        # Stored rows survive the kill and keyword search finds them, vector or not.
        hits = watcher.memory.search("okapi", limit=3, loose=True)
        assert hits and hits[0].message_id == "k1234"
        left = watcher.processor.backlog.pending()
        vectors = watcher.processor.collection.count()
        # Every row has a vector or is in the backlog (a row may have both: killed between the
        # vector upsert and its stamp; the next drain embeds it again).
        assert left > 0 and vectors + left >= 1500
        # The dead process's claim is still live: nobody else drains until it expires.
        assert watcher.processor.backlog.drain().busy_with.startswith(f"{importer.pid}:")
    finally:
        if importer.poll() is None:
            os.kill(importer.pid, signal.SIGKILL)
            importer.wait(timeout=30)
        watcher.close()

    # The next start (the importer ran on the wall clock; look from two TTLs later) resumes.
    later = FixedClock(int(time.time() * 1000) + 2 * DEFAULT_TTL_MS)

    class Counting(HashingEmbedder):
        embedded = 0

        def embed_documents(self, texts):  # type: ignore[no-untyped-def]
            Counting.embedded += len(texts)
            return super().embed_documents(texts)

    after = build_services(settings, clock=later, embedder=Counting())
    try:
        report = after.processor.backlog.drain()
        assert report.busy_with is None and report.embedded == left
        assert Counting.embedded == left  # the rows embedded before the kill are not redone
        assert after.processor.backlog.pending() == 0
        assert after.processor.collection.count() == 1500
        assert after.index.verify(full=True)[0].healthy
    finally:
        after.close()
