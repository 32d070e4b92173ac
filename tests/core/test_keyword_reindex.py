"""Existing messages' keyword entries catch up once when the keyword body's format changes."""

from __future__ import annotations

import threading

from sqlalchemy import text

from app.bootstrap import Services
from app.core.domain import Attachment
from app.core.index.keyword_format import LEASE, KeywordFormatRow, KeywordReindex
from app.core.index.message_kind import KEYWORD_FORMAT, keyword_body
from app.core.storage.keyword import MESSAGE_KIND
from app.core.storage.models import RawMessageRow
from tests.conftest import make_message


def _old_format(services: Services) -> None:
    """Entries as session 5 wrote them (no attachment names), and no format recorded: an archive
    from before the format stamp."""
    with services.db.write() as session:
        for row in session.query(RawMessageRow):
            old = " ".join(p for p in (row.content, row.person, row.channel) if p)
            update = text("UPDATE messages_fts SET body = :b WHERE rowid = :i")
            session.execute(update, {"b": old, "i": row.id})
        session.query(KeywordFormatRow).delete()


def _archive(services: Services, n: int = 7) -> list[int]:
    deck = Attachment(name="Quarterly-forecast-deck.pdf", url="https://files.example/x/deck.pdf")
    batch = [make_message(0, content="here you go", attachments=(deck,))]
    batch += [make_message(i, content=f"lunch at noon number {i}?") for i in range(1, n)]
    return list(services.memory.ingest(batch).ids)


def _reindex(services: Services, **options: object) -> KeywordReindex:
    keywords = services.processor.corpus.keywords
    return KeywordReindex(services.db, services.clock, keywords, keyword_body, KEYWORD_FORMAT, **options)  # type: ignore[arg-type]


def _finds_the_deck(services: Services) -> bool:
    """Whether the keyword index finds the message by its attachment's name (on a small archive
    the vector leg brings every message anyway, so search itself is not the test)."""
    with services.db.read() as session:
        hits = services.processor.corpus.keywords.search_messages(session, "forecast deck", 3)
    with services.db.read() as session:
        contents = {session.get(RawMessageRow, int(h.ref)).content for h in hits}  # type: ignore[union-attr]
    return "here you go" in contents


def test_an_old_archive_is_reindexed_once_and_then_finds_attachment_names(services: Services) -> None:
    _archive(services)
    _old_format(services)
    assert not _finds_the_deck(services)  # the state session 6 left older messages in
    status = services.index.keyword_format()
    assert status is not None and status.pending and status.total == 7 and status.format == 0
    assert services.index.reindex_keywords() == 7
    assert _finds_the_deck(services)
    status = services.index.keyword_format()
    assert status is not None and not status.pending
    assert status.to_dict() == {"format": KEYWORD_FORMAT, "target": KEYWORD_FORMAT, "pending": False,
                                "done": 7, "total": 7}  # fmt: skip
    assert services.index.reindex_keywords() == 0  # once: later runs only read the stamp


def test_the_reindex_resumes_where_it_stopped(services: Services) -> None:
    ids = _archive(services)
    _old_format(services)
    stop = threading.Event()
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        stop.set()  # a process shutting down after its first batch

    job = _reindex(services, batch=3, pause_s=0)
    assert job.run(stop=stop, progress=progress) == 3
    status = job.status()
    assert status.pending and (status.done, status.total) == (3, 7) and seen == [(3, 7)]
    with services.db.read() as session:
        assert session.get(KeywordFormatRow, MESSAGE_KIND).done_through == ids[2]  # type: ignore[union-attr]
    assert _reindex(services, batch=3, pause_s=0).run() == 4  # a new process goes on from there
    assert not job.status().pending and _finds_the_deck(services)


def test_an_edit_during_the_reindex_is_kept_and_erased_entries_stay_gone(services: Services) -> None:
    ids = _archive(services)
    _old_format(services)
    with services.db.write() as session:  # an entry removed on purpose (as erasure does)
        session.execute(text("DELETE FROM messages_fts WHERE rowid = :i"), {"i": ids[3]})
    job = _reindex(services, batch=2, pause_s=0)
    stop = threading.Event()
    job.run(stop=stop, progress=lambda done, total: stop.set())
    services.memory.ingest([make_message(5, content="moved lunch to the canteen")])  # edit of ids[5]
    job.run()
    with services.db.read() as session:
        bodies = dict(session.execute(text("SELECT rowid, body FROM messages_fts")).all())
    assert ids[3] not in bodies
    assert "canteen" in bodies[ids[5]]
    assert "Quarterly-forecast-deck" in bodies[ids[0]]


def test_one_process_at_a_time(services: Services) -> None:
    _archive(services)
    _old_format(services)
    leases = services.index.leases
    with leases.hold(LEASE):  # another process is at it
        assert _reindex(services, leases=leases).run() == 0
    assert _reindex(services, leases=leases).run() == 7


def test_a_new_archive_is_current_at_once(services: Services) -> None:
    assert services.index.reindex_keywords() == 0
    status = services.index.keyword_format()
    assert status is not None and not status.pending and status.total == 0
