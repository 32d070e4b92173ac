"""`hit_rows`: the candidates' rows in one statement, read with one fetchall (issue 16, `rest4`)."""

from __future__ import annotations

import json

from app.bootstrap import Services
from app.core.search.hit_rows import HIT_FIELDS, hit_rows
from app.core.storage.models import RawMessageRow
from tests.conftest import make_message


def test_rows_by_key_with_every_hit_column_and_nothing_else(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"hiking trip number {i}") for i in range(5)])
    with services.db.read() as session:
        ids = sorted(r.id for r in session.query(RawMessageRow.id))
    services.memory.pin(ids[1])
    wanted = [ids[3], ids[1], 999_999]  # any order; an id that does not exist is left out
    with services.db.read() as session:
        rows = hit_rows(session, wanted)
        orm = {r.id: r for r in session.query(RawMessageRow).filter(RawMessageRow.id.in_(wanted))}
    assert set(rows) == {str(ids[1]), str(ids[3])}
    for key, row in rows.items():
        stored = orm[int(key)]
        # The same values the ORM reads, by attribute, for every column a hit is built from
        # (attachments as their stored JSON text, pinned as 0/1: ranking.py reads both so).
        plain = [f for f in HIT_FIELDS if f not in ("is_pinned", "attachments")]
        assert {f: getattr(row, f) for f in plain} == {f: getattr(stored, f) for f in plain}
        assert json.loads(row.attachments) == stored.attachments
        assert bool(row.is_pinned) is bool(stored.is_pinned)
    assert rows[str(ids[1])].is_pinned and not rows[str(ids[3])].is_pinned
    assert rows[str(ids[3])].content == "hiking trip number 3"


def test_no_ids_no_rows(services: Services) -> None:
    with services.db.read() as session:
        assert hit_rows(session, []) == {}
