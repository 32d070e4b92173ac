"""Deletion means gone: after a delete no file in the data dir holds the text (rows, audit, FTS, summary)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from app.bootstrap import build_services
from app.core.clock import DAY_MS, FixedClock
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import InvalidInput, NotFound
from app.core.storage.models import AuditRow, MemorySummaryRow
from app.services.deletion_service import MessageSelector
from tests.forgetting.factory import NOW

SECRET = "zanzibarquokka"
EARLIER = "earlierversionmarmoset"


def files_holding(root: Path, needle: str) -> list[str]:
    """Every file under root whose bytes contain the needle (UTF-8), like `grep -rl`."""
    raw = needle.encode()
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and raw in p.read_bytes()]


@pytest.fixture
def svc(settings):
    services = build_services(settings, clock=FixedClock(NOW), embedder=HashingEmbedder())
    yield services
    services.close()


def _msg(
    n: int, content: str, *, day: int = 40, channel: str = "general", person: str = "anna"
) -> RawMessage:
    return RawMessage(
        platform="slack",
        message_id=f"d{day}-{n}",
        channel=channel,
        person=person,
        timestamp=NOW - day * DAY_MS + n * 60_000,
        content=content,
    )


def test_delete_leaves_no_copy_of_the_text_anywhere(svc, data_dir: Path) -> None:
    texts = [
        f"We decided the {EARLIER} budget goes to the design team this quarter.",
        "Priya books the venue for the offsite and sends the invites on Monday.",
        "The release train leaves on Thursday; freeze the branch on Wednesday night.",
        "Remember to renew the certificates before they expire next month.",
    ]
    svc.memory.ingest([_msg(i, t) for i, t in enumerate(texts)])
    # An edit: the earlier text goes to the audit log.
    edited = texts[0].replace(EARLIER, SECRET)
    svc.memory.ingest([_msg(0, edited)])
    report = svc.forgetting.run()  # 40 days old: archived into a summary that quotes the messages
    assert report.status == "completed", report
    with svc.db.read() as session:
        summary = session.scalars(select(MemorySummaryRow)).one()
        target = svc.memory.find("slack", ["d40-0"])[0].id
    assert SECRET in " ".join(summary.key_points) + summary.summary_text + summary.keywords_text
    assert files_holding(data_dir, EARLIER)  # proves the grep sees SQLite's files

    svc.memory.delete(target)

    assert files_holding(data_dir, SECRET) == []
    assert files_holding(data_dir, EARLIER) == []
    hits = svc.memory.search(SECRET)
    assert all(h.kind != "message" and SECRET not in str(h) for h in hits)
    with svc.db.read() as session:
        summary = session.scalars(select(MemorySummaryRow)).one()
        assert target not in summary.source_record_ids and summary.message_count == 3
        trail = session.scalars(select(AuditRow).where(AuditRow.entity_id == str(target))).all()
    actions = [a.action for a in trail]
    assert "delete" in actions and "edit" in actions  # the facts stay, the text does not
    assert all(SECRET not in str(a.details) and EARLIER not in str(a.details) for a in trail)
    assert svc.processor.collection.version_count() == 1  # LanceDB kept no old version
    assert str(target) not in set(svc.processor.collection.keys())
    with pytest.raises(NotFound):
        svc.memory.get(target)


def test_summary_is_removed_when_all_its_sources_go(svc) -> None:
    svc.memory.ingest([_msg(i, f"note {i} about the harbour project timeline") for i in range(3)])
    svc.forgetting.run()
    selector = MessageSelector(channel="general")
    report = svc.memory.deletion.delete_matching(selector)
    assert len(report.deleted) == 3 and report.derived == {
        "regenerated": 0,
        "removed": 1,
        "insightsRemoved": 0,
    }
    with svc.db.read() as session:
        assert session.scalars(select(MemorySummaryRow)).all() == []


def test_bulk_preview_changes_nothing_and_selects_exactly(svc) -> None:
    svc.memory.ingest(
        [_msg(i, f"general talk {i}") for i in range(4)]
        + [_msg(i + 10, f"random talk {i}", channel="random") for i in range(3)]
        + [_msg(i + 20, f"old general talk {i}", day=90) for i in range(2)]
        + [_msg(i + 30, f"bob talk {i}", person="bob") for i in range(2)]
    )
    selector = MessageSelector(channel="general", person="anna", until=NOW - 60 * DAY_MS)
    plan = svc.memory.deletion.plan(selector)
    assert plan.count == 2 and plan.by_channel == (("general", 2),)
    assert [s["preview"] for s in plan.sample] == ["old general talk 0", "old general talk 1"]
    assert svc.memory.stats()["messages"] == 11  # the preview deleted nothing
    report = svc.memory.deletion.delete_matching(selector)
    assert len(report.deleted) == 2
    assert svc.memory.stats()["messages"] == 9
    assert svc.memory.deletion.plan(MessageSelector(platform="slack")).count == 9


def test_bulk_deletion_refuses_an_empty_selector(svc) -> None:
    with pytest.raises(InvalidInput, match="at least one"):
        svc.memory.deletion.plan(MessageSelector())
    with pytest.raises(InvalidInput, match="before"):
        svc.memory.deletion.plan(MessageSelector(since=NOW, until=NOW - 1))


def test_insights_citing_a_deleted_message_are_removed(svc, data_dir: Path) -> None:
    svc.memory.ingest(
        [
            _msg(0, "Decision: we will move the pelicanfjord offsite to Lisbon.", day=1),
            _msg(1, "Decision: the newsletter goes out every second Tuesday.", day=1),
        ]
    )
    svc.insights.generate()
    before = svc.insights.count()
    assert before >= 2 and files_holding(data_dir, "pelicanfjord")
    target = svc.memory.find("slack", ["d1-0"])[0].id
    report = svc.memory.deletion.delete([target])
    assert report.derived["insightsRemoved"] >= 1
    assert svc.insights.count() == before - report.derived["insightsRemoved"]
    assert files_holding(data_dir, "pelicanfjord") == []
