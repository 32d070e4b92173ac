"""Access counts are written in one batch per flush, each record counted as often as it was hit."""

from __future__ import annotations

from app.bootstrap import Services
from tests.conftest import NOW_MS, make_message


def test_one_flush_counts_every_record_as_often_as_it_was_hit(services: Services) -> None:
    services.memory.ingest([make_message(i) for i in range(5)])
    ids = [int(r.id) for r in services.memory.find("slack", [f"m{i}" for i in range(5)])]
    services.access.record([ids[0], ids[1], ids[1]])
    services.access.record([ids[1], ids[3], 999_999])  # a record deleted meanwhile: skipped
    assert services.access.flush() == 4
    counts = {i: services.memory.get(i) for i in ids}
    assert [counts[i].access_count for i in ids] == [1, 3, 0, 1, 0]
    assert [counts[i].last_access_at for i in ids] == [NOW_MS, NOW_MS, None, NOW_MS, None]
    assert services.access.flush() == 0  # nothing pending: nothing written
