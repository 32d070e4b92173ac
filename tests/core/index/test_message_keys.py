"""Sentence keys: built in the background after the message vectors, found by search, kept in step
with edits and deletions, verified and rebuilt by repair (real SQLite and LanceDB in tmp_path)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy import select

from app.bootstrap import Services, build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.filters import Filter
from app.core.index.key_source import MessageKeyStampRow
from app.core.index.legs import LegHit
from app.core.index.message_keys import MESSAGE_KEY_KIND, resolve
from app.core.settings import Settings
from tests.conftest import make_message

LONG = (
    "Morning all! The quarterly revenue numbers look strong again. "
    "Marketing hired two designers for the spring campaign. "
    "I finally adopted a rescue greyhound named Pixel from the shelter."
)


@pytest.fixture
def svc(settings: Settings, clock: FixedClock) -> Iterator[Services]:
    services = build_services(settings, clock=clock, embedder=HashingEmbedder())
    yield services
    services.close()


def stamps(svc: Services) -> dict[int, int]:
    with svc.db.read() as session:
        rows = session.execute(select(MessageKeyStampRow.message_id, MessageKeyStampRow.key_count))
        return {m: n for m, n in rows}


def key_report(svc: Services, full: bool = True) -> dict[str, object]:
    return next(r.to_dict() for r in svc.index.verify(full=full) if r.kind == MESSAGE_KEY_KIND)


def test_an_import_gets_its_keys_in_the_background_pointing_back_to_their_message(svc: Services) -> None:
    batch = [make_message(1, content=LONG), make_message(2, content="ok, see you then")]
    ids = svc.memory.ingest(batch, defer_embedding=True).ids
    assert svc.memory.keys is not None
    status = svc.memory.keys.wait()
    assert status.pending == 0 and status.error is None
    # Every message is stamped (the one-sentence one with no key), and the long one has a key per
    # sentence that holds enough words (the greeting has too few).
    assert stamps(svc) == {ids[0]: 3, ids[1]: 0}
    keys = sorted(svc.memory.keys.corpus.collection.keys())
    assert keys == [f"{ids[0]}:0", f"{ids[0]}:1", f"{ids[0]}:2"]
    assert next(r for r in svc.index.verify(full=True) if r.kind == MESSAGE_KEY_KIND).healthy


def test_a_small_write_gets_its_keys_at_once(svc: Services) -> None:
    first = svc.memory.ingest([make_message(1, content=LONG)]).ids[0]
    assert stamps(svc) == {first: 3}  # no waiting: read-after-write, like the message's vector


def test_a_sentence_lifts_its_message_in_search(svc: Services) -> None:
    """The diluted long message scores higher against its own sentence's words with keys on."""
    filler = [make_message(10 + n, content=f"shelter volunteers walked dogs on day {n}") for n in range(5)]
    long_id = svc.memory.ingest([make_message(1, content=LONG), *filler]).ids[0]
    assert svc.memory.keys is not None
    svc.memory.keys.wait()
    query = "adopted rescue greyhound Pixel"
    searcher = svc.memory.searcher

    def relevance(keys_on: bool) -> float:
        searcher.config = replace(searcher.config, sentence_keys=keys_on)
        hits = svc.memory.search(query, limit=10, loose=True)
        return next(h.score for h in hits if h.id == str(long_id))

    assert relevance(True) > relevance(False)


def test_resolve_takes_the_best_key_and_finds_messages_only_a_key_found() -> None:
    own = {"7": 0.2, "8": 0.1}
    hits = resolve(
        [LegHit("7", 1, 0.2)],
        [LegHit("7:1", 1, 0.6), LegHit("8:0", 2, 0.5), LegHit("7:0", 3, 0.3), LegHit("9:0", 4, 0.4)],
        lambda keys: {k: own[k] for k in keys if k in own},
        0.5,
    )
    # 7: 0.2 + 0.5 × (0.6 − 0.2); 8: 0.1 + 0.5 × 0.4; 9 has no vector of its own: left out.
    assert [(h.key, h.rank) for h in hits] == [("7", 1), ("8", 2)]
    assert hits[0].value == pytest.approx(0.4) and hits[1].value == pytest.approx(0.3)
    # Keys under the least cosine are no evidence: 8 is not found, 7 keeps its own value.
    weak = resolve([LegHit("7", 1, 0.2)], [LegHit("7:1", 1, 0.3), LegHit("8:0", 2, 0.3)], own.get, 0.5, 0.35)
    assert [(h.key, h.value) for h in weak] == [("7", 0.2)]


def test_an_edit_rekeys_and_a_deletion_removes_the_keys(svc: Services) -> None:
    message = make_message(1, content=LONG)
    first = svc.memory.ingest([message]).ids[0]
    assert svc.memory.keys is not None
    svc.memory.keys.wait()
    edited = "I moved to Lisbon in May. The new flat has a balcony over the river."
    svc.memory.ingest([replace(message, content=edited)])
    svc.memory.keys.wait()
    assert stamps(svc) == {first: 2}
    # The third key of the old text is left over until repair removes it.
    assert key_report(svc)["orphans"] == 1
    svc.index.repair()
    assert sorted(svc.memory.keys.corpus.collection.keys()) == [f"{first}:0", f"{first}:1"]

    svc.memory.deletion.delete([first])
    assert svc.memory.keys.corpus.collection.count() == 0
    assert stamps(svc) == {}
    assert next(r for r in svc.index.verify(full=True) if r.kind == MESSAGE_KEY_KIND).healthy


def test_repair_rebuilds_lost_keys_from_sqlite(svc: Services) -> None:
    svc.memory.ingest([make_message(1, content=LONG)])
    assert svc.memory.keys is not None
    svc.memory.keys.wait()
    collection = svc.memory.keys.corpus.collection
    collection.delete(list(collection.keys()))
    report = key_report(svc, full=True)
    assert report["missing"] == 3
    repaired = next(r for r in svc.index.repair() if r.kind == MESSAGE_KEY_KIND)
    assert repaired.reembedded == 3 and collection.count() == 3
    assert key_report(svc)["missing"] == 0


def test_sentence_keys_off_builds_and_searches_none(settings: Settings, clock: FixedClock) -> None:
    settings.search.sentence_keys = False
    services = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        assert services.memory.keys is None and services.memory.searcher.keys is None
        services.memory.ingest([make_message(1, content=LONG)])
        assert services.memory.search("greyhound Pixel", limit=5)
        assert MESSAGE_KEY_KIND not in {r.kind for r in services.index.verify()}
    finally:
        services.close()


@pytest.mark.parametrize(("limit", "in_memory"), [(2, False), (300_000, True)])
def test_the_keys_own_copy_limit_decides_whether_memory_serves_their_leg(
    settings: Settings, clock: FixedClock, limit: int, in_memory: bool
) -> None:
    """A 100k archive has ~180k keys: above the messages' copy limit, so the keys have their own
    (`search.key_copy_max_rows`); above it LanceDB serves their leg and no copy is held."""
    settings.search.key_copy_max_rows = limit
    services = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        services.memory.ingest([make_message(1, content=LONG)])
        assert services.memory.keys is not None
        corpus = services.memory.keys.corpus
        assert corpus.max_cached_rows == limit and len(corpus.collection.keys()) == 3
        # Either way the leg answers (from memory, or from LanceDB's table) ...
        assert corpus.vector_leg(HashingEmbedder().embed_query("rescue greyhound"), 2, Filter(()))
        # ... but only under the limit is the copy held.
        assert (corpus.matrix().memory_bytes() > 0) is in_memory
    finally:
        services.close()
