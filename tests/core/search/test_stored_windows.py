"""Above the in-memory limit, windows come from SQLite and LanceDB: same windows, same ranking."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sqlalchemy import update

from app.core.domain import SearchFilters
from app.core.search.messages import _HIT_FIELDS, MessageQuery
from app.core.search.stored_windows import StoredWindows
from app.core.storage.models import RawMessageRow
from tests.conftest import NOW_MS, make_message

TALK = {
    "general": [
        "where did you go on holiday?",
        "Lisbon, with my sister",
        "sounds lovely, did you try the custard tarts",
        "every single morning, and we took the tram up the hill",
        "we should plan the offsite",
        "agreed, next month works for the team",
        "I can book the venue near the river",
    ],
    "random": [
        "the printer is out of toner again",
        "I ordered more toner for the printer",
        "did anyone see my blue umbrella",
        "it is by the door next to the plants",
    ],
    "family": [
        "mum asked about the birthday dinner",
        "let's do the italian place on friday",
        "my sister will bring the cake",
        "Lisbon photos are in the shared album",
    ],
}
QUERIES = ["holiday Lisbon", "printer toner", "birthday dinner cake", "offsite venue", "umbrella door"]


def _seed(services) -> None:
    messages, n = [], 0
    for turn in range(7):  # interleave the conversations in time, as real channels are
        for channel, lines in TALK.items():
            if turn < len(lines):
                messages.append(
                    make_message(
                        n, channel=channel, content=lines[turn], timestamp=NOW_MS - 10_000_000 + n * 60_000
                    )
                )
                n += 1
    services.memory.ingest(messages)
    # An archived turn: neither path lends it to a window.
    with services.db.write() as session:
        session.execute(update(RawMessageRow).where(RawMessageRow.id == 5).values(archived_at=NOW_MS))
    services.memory.searcher.corpus.set_columns(["5"], {"archived": True})


def _search(services, text: str):
    query = MessageQuery(text, SearchFilters(), 8, services.memory.user_id, loose=True)
    return [(h.id, round(h.score, 5), round(h.relevance, 5)) for h in services.memory.searcher.search(query)]


def _without_memory_copy(services) -> None:
    corpus = services.memory.searcher.corpus
    corpus.max_cached_rows = 1  # as a collection past the limit: the index path serves
    corpus._caches.clear()
    assert corpus.matrix().view() is None


def test_stored_windows_are_the_in_memory_windows(services) -> None:
    _seed(services)
    searcher = services.memory.searcher
    keys = [str(i) for i in range(1, 19)]
    vector = searcher.embedder.embed_query("holiday Lisbon")
    _search(services, "holiday Lisbon")  # loads the in-memory copy
    exact = searcher.windows.around(searcher.corpus.matrix(), vector, keys)
    store = StoredWindows(_HIT_FIELDS, searcher.corpus.collection.vectors_of)
    stored, _ = store.windows(services.db.read, vector, keys)
    assert stored.neighbours == exact.neighbours
    assert "5" not in {n for near in stored.neighbours.values() for n in near}
    assert stored.cosines.keys() == exact.cosines.keys()
    for key, value in exact.window_cosines.items():
        assert np.isclose(stored.window_cosines[key], value, atol=1e-5)
        assert np.isclose(stored.cosines[key], exact.cosines[key], atol=1e-5)


def test_both_paths_rank_alike(services) -> None:
    _seed(services)
    in_memory = {q: _search(services, q) for q in QUERIES}
    _without_memory_copy(services)
    served = {q: _search(services, q) for q in QUERIES}
    assert served == in_memory
    # And windows matter on this data: without them the order differs.
    searcher = services.memory.searcher
    searcher.config = replace(searcher.config, windows=False)
    assert {q: _search(services, q) for q in QUERIES} != in_memory
