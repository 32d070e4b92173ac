"""The corpus keeps keyword entries, vectors and rows in step for every kind, and says who owns them."""

from __future__ import annotations

from sqlalchemy import text

from app.bootstrap import Services
from app.core.index.lease import WriterLeases
from tests.conftest import make_message


def test_keyword_refs_carry_the_user_and_lost_keyword_entries_are_rebuilt(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"kingfisher report {i}") for i in range(3)])
    services.knowledge.add_bytes(b"The kingfisher handbook: rivers and reeds.", "k.txt")
    with services.db.read() as session:
        users = session.execute(text("SELECT DISTINCT kind, user_id FROM keyword_refs")).all()
    assert users == [("chunk", "local")]
    with services.db.write() as session:
        session.execute(text("DELETE FROM messages_fts WHERE rowid = 1"))
        services.knowledge.kb.corpus.unindex_text(session, [f"{services.knowledge.list_documents()[0].id}:0"])
    before = {r.kind: r.keyword_missing for r in services.index.verify()}
    assert before == {"message": 1, "summary": 0, "insight": 0, "chunk": 1, "message_key": 0}
    repaired = {r.kind: r.keywords_rebuilt for r in services.index.repair()}
    assert repaired["message"] == 1 and repaired["chunk"] == 1
    assert all(r.healthy for r in services.index.verify(full=True))
    assert len(services.knowledge.search("kingfisher handbook")) == 1


def test_a_live_lease_defers_repair_and_an_expired_one_does_not(services: Services, clock) -> None:
    leases = WriterLeases(services.db, clock, ttl_ms=1000)
    with leases.hold("message"):
        assert len(leases.live("message")) == 1 and leases.live("chunk") == []
        assert services.index.repair()[0].deferred_for
    assert leases.live("message") == []  # released on exit
    with services.db.write() as session:  # a writer that died: its row stays until it expires
        session.execute(
            text("INSERT INTO locks(key, token, acquired_at, expires_at) VALUES ('index_writer:message:9:x', "
                 "'9:x', :now, :exp)"),
            {"now": clock.now_ms(), "exp": clock.now_ms() - 1},
        )  # fmt: skip
    assert leases.live("message") == [] and not services.index.repair()[0].deferred_for
    assert leases.clear_expired() == 0  # repair already cleared it
