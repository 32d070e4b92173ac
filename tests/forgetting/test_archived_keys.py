"""Archiving drops a message's sentence keys at once and an undo builds them again (real SQLite and
LanceDB in tmp_path): keys of archived messages would otherwise take candidate places in search
and wait as orphans for the index repair."""

from __future__ import annotations

from sqlalchemy import select

from app.core.index.key_source import MessageKeyStampRow
from app.core.index.message_keys import MESSAGE_KEY_KIND, message_of
from tests.forgetting.conftest import seed_group

# Each text holds two sentences long enough to be keys of their own.
TEXTS = [
    "We agreed to freeze the API contract on Friday before the beta. Priya owns the release notes for it.",
    "Beta testers get their invites on Monday morning. Priya sends them from the shared mailbox.",
    "Known issue: exports time out above ten thousand rows. The fix ships with the next patch release.",
]


def keyed_messages(services) -> set[int]:
    keys = services.memory.keys.corpus.collection.keys()  # the LanceDB collection's ids
    return {int(message_of(k)) for k in keys}


def stamped(services) -> set[int]:
    with services.db.read() as session:
        return set(session.scalars(select(MessageKeyStampRow.message_id)))


def key_report(services) -> dict[str, object]:
    return next(r.to_dict() for r in services.index.verify(full=True) if r.kind == MESSAGE_KEY_KIND)


def test_archiving_drops_the_keys_and_undo_builds_them_again(services) -> None:
    ids = seed_group(services, day=10, texts=TEXTS)
    kept = seed_group(services, day=0, texts=TEXTS, prefix="today")
    services.memory.keys.wait()
    assert keyed_messages(services) == set(ids) | set(kept)

    report = services.forgetting.run()
    assert report.tiers[0].archived == 3
    assert all(services.memory.get(i).archived_at is not None for i in ids)
    # Gone from the key corpus and unstamped, without a repair; today's messages keep theirs.
    assert keyed_messages(services) == set(kept)
    assert stamped(services) == set(kept)
    verified = key_report(services)
    assert verified["orphans"] == 0 and verified["missing"] == 0, verified

    services.forgetting.undo(report.run_id)
    services.memory.keys.wait()
    assert keyed_messages(services) == set(ids) | set(kept)
    assert key_report(services)["orphans"] == 0
