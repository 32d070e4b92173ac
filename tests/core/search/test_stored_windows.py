"""Above the in-memory limit, windows come from SQLite and LanceDB: same windows, same ranking."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sqlalchemy import update

from app.core.domain import SearchFilters
from app.core.search.hit_rows import HIT_FIELDS, hit_rows
from app.core.search.message_query import MessageQuery
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
    store = StoredWindows(HIT_FIELDS, searcher.corpus.collection.vectors_of)
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


class _Counting:
    """The collection's vector lookup, counting calls and keys."""

    def __init__(self, lookup) -> None:
        self.lookup, self.calls, self.keys = lookup, 0, 0

    def __call__(self, keys):
        self.calls += 1
        self.keys += len(keys)
        return self.lookup(keys)


def test_one_statement_and_one_lookup_serve_the_candidates_and_their_turns(services) -> None:
    """A batch of candidates costs one statement and one lookup; the windows of their turns
    (the ones that join as candidates) cost neither, and equal those read on their own."""
    _seed(services)
    searcher = services.memory.searcher
    vector = searcher.embedder.embed_query("holiday Lisbon")
    lookup = _Counting(searcher.corpus.collection.vectors_of)
    store = StoredWindows(HIT_FIELDS, lookup)
    centres = ["7"]  # "general" turn 2 (1, 4, 7, 10, 13, 14, 15: ids interleave three channels)
    with services.db.read() as session:
        store.prefetch(session, centres)
    assert (store.statements, lookup.calls) == (1, 1)
    context, rows = store.windows(services.db.read, vector, centres, ahead=centres)
    assert (store.statements, lookup.calls) == (1, 2)  # the turns beyond the windows, for `ahead`
    turns = [n for key in centres for n in context.neighbours[key] if n not in centres]
    assert turns == ["1", "4", "10", "13"] and set(rows) == set(turns)
    again, _ = store.windows(services.db.read, vector, turns)
    assert (store.statements, lookup.calls) == (1, 2)  # nothing more read
    alone, _ = StoredWindows(HIT_FIELDS, searcher.corpus.collection.vectors_of).windows(
        services.db.read, vector, turns
    )
    assert again.neighbours == alone.neighbours
    for key, value in alone.window_cosines.items():
        assert np.isclose(again.window_cosines[key], value, atol=1e-6)


def test_turns_at_the_same_instant_follow_the_id_order(services) -> None:
    """Several turns with one timestamp (an import of a day's export): both paths order them by
    id, and the windows agree."""
    lines = ["the ferry leaves at noon", "bring the tickets", "and sunscreen", "see you at the pier", "ok"]
    stamp = NOW_MS - 5_000_000
    services.memory.ingest(
        [make_message(n, channel="trip", content=line, timestamp=stamp) for n, line in enumerate(lines)]
    )
    searcher = services.memory.searcher
    vector = searcher.embedder.embed_query("ferry tickets")
    keys = [str(i) for i in range(1, len(lines) + 1)]
    _search(services, "ferry tickets")  # loads the in-memory copy
    exact = searcher.windows.around(searcher.corpus.matrix(), vector, keys)
    stored, _ = StoredWindows(HIT_FIELDS, searcher.corpus.collection.vectors_of).windows(
        services.db.read, vector, keys
    )
    assert stored.neighbours == exact.neighbours
    assert stored.neighbours["3"] == ("1", "2", "4", "5")


def test_index_path_search_reads_vectors_in_batches(services) -> None:
    """A whole search on the index path reads stored vectors in at most four lookups: the
    keyword candidates with their windows' turns (keyword worker), the vector candidates' two
    halves (read at once on two threads), then the turns beside the best few; the windows of
    the turns that join as candidates need none."""
    _seed(services)
    _without_memory_copy(services)
    collection = services.memory.searcher.corpus.collection
    counting = _Counting(collection.vectors_of)
    collection.vectors_of = counting  # an instance attribute: the class is untouched
    try:
        assert _search(services, "holiday Lisbon")
    finally:
        del collection.vectors_of
    assert 1 <= counting.calls <= 4


def test_turns_are_read_nearest_first_within_the_platform_ties_by_id(services) -> None:
    """The one statement (ids bound, prepared once) gives each candidate's turns as a plain walk
    of its conversation does: same user, platform and channel, ordered by (timestamp, id), nearest
    first, at most the read depth each side; a channel name shared by two platforms is two
    conversations, and turns at the same millisecond keep their id order."""
    rng = np.random.default_rng(3)
    messages = [
        make_message(
            i,
            platform=("slack", "discord")[int(rng.integers(0, 2))],
            channel=("general", "random")[int(rng.integers(0, 2))],
            timestamp=NOW_MS - 5_000_000 + int(rng.integers(0, 40)) * 1000,  # many ties
        )
        for i in range(160)
    ]
    services.memory.ingest(messages)
    with services.db.read() as session:
        rows = session.execute(
            RawMessageRow.__table__.select().order_by(RawMessageRow.timestamp, RawMessageRow.id)
        ).all()
    conversations: dict[tuple[str, str, str], list[str]] = {}
    for row in rows:
        conversations.setdefault((row.user_id, row.platform, row.channel), []).append(str(row.id))
    store = StoredWindows(HIT_FIELDS, lambda keys: {})
    keys = [str(row.id) for row in rows[::7]]
    with services.db.read() as session:
        store.read(session, keys)
        store.read(session, keys)  # read already: no second statement
        reference = hit_rows(session, [int(k) for k in keys])  # the rows a hit is built from
    assert store.statements == 1
    by_id = {str(row.id): row for row in rows}
    for key in keys:
        row = by_id[key]
        walk = conversations[(row.user_id, row.platform, row.channel)]
        at = walk.index(key)
        expected_before = tuple(reversed(walk[max(0, at - store.depth_before) : at]))
        expected_after = tuple(walk[at + 1 : at + 1 + store.depth_after])
        assert store._turns[key] == (expected_before, expected_after)
        assert tuple(store.rows[key]) == tuple(reference[key]) and store.rows[key].content == row.content


def test_the_turns_walk_the_conversation_index(services) -> None:
    """Each side's turns are one seek on (user_id, platform, channel, timestamp): every step is a
    turn of the same platform's channel, not every message of a channel name shared by several."""
    from app.core.search.stored_windows import _statement

    services.memory.ingest([make_message(i, platform=("slack", "discord")[i % 2]) for i in range(20)])
    with services.db.read() as session:
        plan = session.connection().exec_driver_sql(
            f"EXPLAIN QUERY PLAN {_statement(HIT_FIELDS)}", ("[1]", 4, 4)
        )
        steps = [str(row[-1]) for row in plan]
    turns = [s for s in steps if s.startswith("SEARCH m ")]
    assert len(turns) == 2 and all(
        "ix_raw_messages_user_platform_channel_timestamp (user_id=? AND platform=? AND channel=?" in s
        for s in turns
    ), steps
