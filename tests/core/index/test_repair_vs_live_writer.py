"""Repair never races a live writer in another process, and reads never repair.

The writer process stores a batch of rows and then stalls before embedding it (a slow model,
a big import): to any other process those rows look exactly like a crash's leftovers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.lease import DEFAULT_TTL_MS
from app.core.settings import Settings
from app.core.storage.models import RawMessageRow
from tests.conftest import PROJECT_ROOT, make_message

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import numpy as np
    from app.bootstrap import build_services
    from app.core.embeddings.hashing import HashingEmbedder
    from app.core.settings import EmbeddingSettings, Settings
    from tests.conftest import make_message

    class Stalling(HashingEmbedder):
        def embed_documents(self, texts):
            Path(sys.argv[2]).touch()  # rows are committed; vectors not yet written
            time.sleep(600)
            return super().embed_documents(texts)

    settings = Settings(data_dir=Path(sys.argv[1]), embedding=EmbeddingSettings(provider="hashing"))
    svc = build_services(settings, embedder=Stalling())
    svc.memory.ingest([make_message(100 + i, content=f"written by the other process {i}") for i in range(5)])
    """
)


def _unembedded(svc) -> int:  # type: ignore[no-untyped-def]
    with svc.db.read() as session:
        return int(
            session.scalar(
                select(func.count())
                .select_from(RawMessageRow)
                .where(RawMessageRow.embedding_content_hash.is_(None))
            )
            or 0
        )


@pytest.mark.slow
def test_repair_waits_for_a_live_writer_and_reads_never_repair(settings: Settings, tmp_path: Path) -> None:
    svc = build_services(settings, embedder=HashingEmbedder())
    svc.memory.ingest([make_message(i) for i in range(3)])
    svc.close()
    marker = tmp_path / "stalled"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(settings.data_dir), str(marker)], cwd=PROJECT_ROOT
    )
    try:
        deadline = time.time() + 120
        while not marker.exists():
            assert writer.poll() is None, "the writer exited before stalling"
            assert time.time() < deadline
            time.sleep(0.05)

        reader = build_services(settings, embedder=HashingEmbedder())
        try:
            assert _unembedded(reader) == 5
            # A read: answered (keyword leg finds the new rows) without touching them.
            assert reader.memory.search("written by the other process", limit=10)
            assert _unembedded(reader) == 5
            # Repair sees the live lease and leaves the writer's rows alone.
            messages = reader.index.repair()[0]
            assert messages.kind == "message" and messages.deferred_for
            assert messages.deferred_for[0].startswith(f"{writer.pid}:")
            assert messages.reembedded == 0 and _unembedded(reader) == 5
        finally:
            reader.close()
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=30)

    # The writer died without releasing its lease; once the lease has expired, repair proceeds.
    # (The writer ran on the wall clock; look from two TTLs later.)
    later = FixedClock(int(time.time() * 1000) + 2 * DEFAULT_TTL_MS)
    after = build_services(settings, clock=later, embedder=HashingEmbedder())
    try:
        messages = after.index.repair()[0]
        assert not messages.deferred_for and messages.reembedded == 5
        assert _unembedded(after) == 0 and after.processor.collection.count() == 8
    finally:
        after.close()
