"""Hybrid search over stored messages: filters, dates, duplicates, access tracking, provenance."""

from sqlalchemy import update

from app.bootstrap import Services
from app.core.domain import SearchFilters
from app.core.storage.models import RawMessageRow
from tests.conftest import NOW_MS, make_message

DAY = 86_400_000


def seed(services: Services) -> None:
    services.memory.ingest(
        [
            make_message(1, content="the quarterly budget was approved", channel="finance", person="omar"),
            make_message(2, content="budget spreadsheet is shared", platform="discord", channel="ops"),
            make_message(
                3,
                content="login bug fixed by maria",
                channel="eng",
                person="maria",
                timestamp=NOW_MS - 1 * DAY,
            ),
            make_message(4, content="old budget talk from last year", timestamp=NOW_MS - 400 * DAY),
            make_message(5, content="The quarterly budget was approved!", channel="finance2"),
        ]
    )


def test_hits_carry_provenance(services: Services) -> None:
    seed(services)
    hit = services.memory.search("login bug", limit=1)[0]
    assert (hit.platform, hit.channel, hit.person, hit.tier, hit.kind) == (
        "slack",
        "eng",
        "maria",
        "short",
        "message",
    )
    assert hit.timestamp == NOW_MS - DAY and hit.message_id == "m3" and hit.score > 0


def test_filters(services: Services) -> None:
    seed(services)
    assert {h.platform for h in services.memory.search("budget", SearchFilters(platforms=("discord",)))} == {
        "discord"
    }
    assert {h.channel for h in services.memory.search("budget", SearchFilters(channels=("finance",)))} == {
        "finance"
    }
    recent = services.memory.search("budget", SearchFilters(since=NOW_MS - 30 * DAY))
    assert all(h.timestamp >= NOW_MS - 30 * DAY for h in recent) and recent


def test_date_phrase_becomes_filter(services: Services) -> None:
    seed(services)
    hits = services.memory.search("what was fixed yesterday", limit=5)
    assert hits[0].content == "login bug fixed by maria"
    assert all(h.timestamp >= NOW_MS - 2 * DAY for h in hits)


def test_near_duplicates_collapse(services: Services) -> None:
    seed(services)
    contents = [
        h.content.lower().rstrip("!") for h in services.memory.search("quarterly budget approved", limit=5)
    ]
    assert contents.count("the quarterly budget was approved") == 1


def test_access_tracking_happens_off_the_request_path(services: Services) -> None:
    seed(services)
    hit = services.memory.search("login bug", limit=1)[0]
    services.access.flush()
    record = services.memory.get(int(hit.id))
    assert record.access_count == 1 and record.last_access_at == NOW_MS


def test_archived_messages_are_hidden(services: Services) -> None:
    seed(services)
    with services.db.write() as session:
        session.execute(
            update(RawMessageRow).where(RawMessageRow.message_id == "m3").values(archived_at=NOW_MS)
        )
    assert all(h.message_id != "m3" for h in services.memory.search("login bug maria", limit=5))
    assert services.memory.get(3).content is None
    assert services.memory.get(3, reveal_archived=True).content == "login bug fixed by maria"


def test_hits_say_when_they_are_pinned_or_archived(services: Services) -> None:
    seed(services)
    services.memory.pin(3)
    with services.db.write() as session:
        session.execute(
            update(RawMessageRow).where(RawMessageRow.message_id == "m3").values(archived_at=NOW_MS)
        )
    every = SearchFilters(include_archived=True)
    hit = next(h for h in services.memory.search("login bug maria", limit=5, filters=every) if h.id == "3")
    assert hit.to_dict()["is_pinned"] is True and hit.to_dict()["archived_at"] == NOW_MS
    plain = services.memory.search("login bug", limit=5, loose=True)
    assert plain and all("archived_at" not in h.to_dict() for h in plain)


def test_delete_removes_everywhere(services: Services) -> None:
    seed(services)
    services.memory.delete(3)
    assert all(h.id != "3" for h in services.memory.search("login bug", limit=5))
    assert services.processor.collection.count() == 4


def test_context_returns_neighbours_in_the_same_conversation(services: Services) -> None:
    services.memory.ingest(
        [make_message(i, channel="c1") for i in range(6)] + [make_message(99, channel="c2")]
    )
    ctx = services.memory.context(3, before=1, after=1)
    assert [n.message_id for n in ctx.neighbours] == ["m1", "m3"]
