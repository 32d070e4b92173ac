"""Conversation windows from stored vectors: neighbours in time order, same conversation only."""

from __future__ import annotations

from sqlalchemy import update

from app.core.domain import SearchFilters
from app.core.search.message_query import MessageQuery, message_filter
from app.core.storage.models import RawMessageRow
from tests.conftest import NOW_MS, make_message


def _seed(services) -> None:
    rows = [
        ("general", "where did you go on holiday?"),
        ("random", "the printer is out of toner"),
        ("general", "Lisbon, with my sister"),
        ("general", "sounds lovely"),
        ("general", "we should plan the offsite"),
        ("general", "agreed, next month"),
    ]
    services.memory.ingest(
        make_message(i, channel=c, content=t, timestamp=NOW_MS - (10 - i) * 60_000)
        for i, (c, t) in enumerate(rows)
    )


def _around(services, keys, **kw):
    searcher = services.memory.searcher
    matrix = searcher.corpus.matrix()
    vector = searcher.embedder.embed_query("holiday Lisbon")
    # A vector search loads the in-memory copy the windows read (as in a real search).
    query = MessageQuery("holiday Lisbon", SearchFilters(), 5, services.memory.user_id)
    searcher.corpus.vector_leg(vector, 5, message_filter(query))
    return searcher.windows.around(matrix, vector, keys, **kw)


def test_windows_hold_two_turns_each_side_of_the_same_conversation(services) -> None:
    _seed(services)
    context = _around(services, ["3"])
    # Message 3 ("Lisbon…") in #general: 1 before it, then 4 and 5 after; #random's 2 is skipped.
    assert context.neighbours["3"] == ("1", "4", "5")
    assert -1.0 <= context.window_cosines["3"] <= 1.0 and "3" in context.cosines
    assert _around(services, ["3", "nope"], windows=False).window_cosines == {}


def test_archived_turns_are_left_out_of_windows(services) -> None:
    _seed(services)
    with services.db.write() as session:
        session.execute(update(RawMessageRow).where(RawMessageRow.id == 4).values(archived_at=NOW_MS))
    services.memory.searcher.corpus.set_columns(["4"], {"archived": True})
    assert "4" not in _around(services, ["3"]).neighbours["3"]
