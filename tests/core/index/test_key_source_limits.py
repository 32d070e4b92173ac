"""The sentence keys' source reads any number of unstamped messages under SQLite's IN-list limit
(a bulk-built 1M archive has ~1M of them: its repair failed with "too many SQL variables")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.key_source import MessageKeySource
from app.core.settings import EmbeddingSettings, SearchSettings, Settings
from app.core.storage.db import MAX_SQL_PARAMS
from tests.conftest import NOW_MS, make_message

N = MAX_SQL_PARAMS + 300


def test_unstamped_keys_past_the_parameter_limit(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        embedding=EmbeddingSettings(provider="hashing"),
        search=SearchSettings(sentence_keys=False),  # stored and embedded, no keys: as bulk-built
    )
    embedder = HashingEmbedder()
    svc = build_services(settings, clock=FixedClock(NOW_MS), embedder=embedder)
    try:
        messages = [make_message(i, content=f"The budget moved to Friday. Item {i}.") for i in range(N)]
        svc.memory.ingest(messages)
        with svc.db.read() as session:
            raw = session.connection().connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            # This machine's SQLite allows 32766 parameters; a limit just over one slice stands
            # for a 1M archive's unstamped ids against that.
            raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, MAX_SQL_PARAMS + 1)
            source = MessageKeySource(FixedClock(NOW_MS))
            keys = source.unembedded(session, embedder.model_id, embedder.dimensions)
    finally:
        svc.close()
    assert len({key.split(":")[0] for key in keys}) == N
