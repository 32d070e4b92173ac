"""The processor on real SQLite + LanceDB: dedupe, edits, bad input, crash repair."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from sqlalchemy import select, update

from app.bootstrap import Services, build_services
from app.core.domain import Attachment, IngestError
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.message_kind import keyword_body
from app.core.settings import Settings
from app.core.storage.models import AuditRow, RawMessageRow
from tests.conftest import make_message


def test_ingest_stores_rows_vectors_and_keywords(services: Services) -> None:
    result = services.memory.ingest([make_message(i) for i in range(5)])
    assert (result.imported, result.duplicates, result.errors) == (5, 0, ())
    assert services.memory.stats()["messages"] == 5
    assert services.processor.collection.count() == 5
    with services.db.read() as session:
        rows = session.scalars(select(RawMessageRow)).all()
    assert all(r.embedding_content_hash and r.embedding_model == "hashing-bow-64" for r in rows)
    assert all(r.embedding_dimensions == 64 and r.memory_stage == "short" for r in rows)


def test_reingest_is_a_noop(services: Services) -> None:
    services.memory.ingest([make_message(i) for i in range(3)])
    again = services.memory.ingest([make_message(i) for i in range(3)])
    assert (again.imported, again.duplicates, again.updated) == (0, 3, 0)
    assert services.processor.collection.count() == 3


def test_edit_updates_in_place_and_audits_previous_text(services: Services) -> None:
    services.memory.ingest([make_message(1, content="first version")])
    result = services.memory.ingest([make_message(1, content="second version")])
    assert (result.imported, result.updated) == (0, 1)
    record = services.memory.get(result.ids[0])
    assert record.content == "second version"
    with services.db.read() as session:
        edits = session.scalars(select(AuditRow).where(AuditRow.action == "edit")).all()
    assert edits[0].details["previous_content"] == "first version"
    assert [h.content for h in services.memory.search("second version", limit=1)] == ["second version"]


def test_same_id_on_other_platform_is_a_different_message(services: Services) -> None:
    result = services.memory.ingest([make_message(1), make_message(1, platform="discord")])
    assert result.imported == 2


def test_bad_messages_are_reported_and_the_rest_stored(services: Services) -> None:
    items = [
        make_message(1),
        make_message(2, content="   "),
        make_message(3, content="x" * (10 * 1024 * 1024 + 1)),
        make_message(4, timestamp=1700000000),  # seconds, not ms
        make_message(5, platform=""),
        IngestError(line=7, reason="malformed JSON"),
        make_message(6, content="<p>Hello <b>there</b></p>\x00"),
    ]
    result = services.memory.ingest(items)
    assert result.imported == 2
    reasons = " | ".join(e.reason for e in result.errors)
    assert "empty" in reasons and "MB" in reasons and "milliseconds" in reasons and "platform" in reasons
    assert "malformed JSON" in reasons
    assert {r.content for r in services.memory.get_many(result.ids)} == {"message number 1", "Hello there"}


def test_attachment_only_message_is_kept(services: Services) -> None:
    result = services.memory.ingest([make_message(1, content="", attachments=(Attachment(name="scan.pdf"),))])
    assert result.imported == 1
    assert "scan.pdf" in services.memory.get(result.ids[0]).content


def test_attachment_names_are_found_by_their_words(services: Services) -> None:
    """A shared file or photo is found by its name or caption, not only by the message's words."""
    photo = Attachment(name="a tabby cat asleep on a red sofa", url="https://cdn.example/9f3a.jpg")
    deck = Attachment(name="Quarterly-forecast-deck.pdf", url="https://files.example/x/deck.pdf")
    result = services.memory.ingest(
        [
            make_message(1, content="look who took my spot", attachments=(photo,)),
            make_message(2, content="here you go", attachments=(deck,)),
            make_message(3, content="lunch at noon?"),
        ]
    )
    top = services.memory.search("tabby cat sofa", limit=3)[0]
    assert top.content == "look who took my spot" and top.relevance is not None and top.relevance >= 0.9
    assert services.memory.search("forecast deck", limit=1)[0].content == "here you go"
    with services.db.read() as session:
        row = session.get(RawMessageRow, result.ids[0])
        body = keyword_body(row)
    assert "tabby cat asleep" in body and "cdn.example" not in body  # the URL is not searched


class ExplodingEmbedder(HashingEmbedder):
    """Fails on its n-th call: stands in for a process killed between the two write steps."""

    def __init__(self, fail_on_call: int) -> None:
        super().__init__()
        self.calls = 0
        self.fail_on_call = fail_on_call

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.fail_on_call:
            raise RuntimeError("killed mid-batch")
        return super().embed_documents(texts)


def test_crash_between_store_and_embed_is_repaired_by_the_repair_job(settings: Settings, clock) -> None:
    svc = build_services(settings, clock=clock, embedder=ExplodingEmbedder(fail_on_call=2))
    svc.processor.batch_size = 4
    with pytest.raises(RuntimeError):
        svc.memory.ingest([make_message(i) for i in range(8)])
    # Second batch: rows committed atomically, vectors missing.
    with svc.db.read() as session:
        missing = session.scalars(
            select(RawMessageRow).where(RawMessageRow.embedding_content_hash.is_(None))
        ).all()
    assert len(missing) == 4
    assert svc.processor.collection.count() == 4
    svc.close()

    restarted = build_services(settings, clock=clock, embedder=HashingEmbedder())
    # Opening never repairs (read commands stay fast); the background job (or doctor) does.
    assert restarted.processor.collection.count() == 4
    restarted.index.run_repair_job()
    assert restarted.processor.collection.count() == 8
    assert restarted.memory.ingest([make_message(i) for i in range(8)]).duplicates == 8
    restarted.close()


def test_full_repair_finds_stale_hashes_and_orphans(services: Services) -> None:
    ids = services.memory.ingest([make_message(i) for i in range(3)]).ids
    with services.db.write() as session:
        session.execute(update(RawMessageRow).where(RawMessageRow.id == ids[0]).values(memory_stage="mid"))
    services.processor.collection.upsert(
        ["9999"], np.ones((1, 64), dtype=np.float32) / 8, [{"user_id": "local"}]
    )
    report = services.memory.repair(full=True)
    assert report.reembedded == 1 and report.orphans_removed == 1
    assert services.memory.repair(full=True).reembedded == 0
