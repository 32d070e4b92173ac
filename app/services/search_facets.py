"""The people, conversations and platforms a user's messages come from, for the search pickers."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow

# Enough for any picker; the most active first, so the long tail is what gets cut.
FACET_LIMIT = 500


@dataclass(frozen=True, slots=True)
class Facets:
    """Known values with their message counts, most messages first."""

    people: list[tuple[str, int]] = field(default_factory=list)
    channels: list[tuple[str, str, int]] = field(default_factory=list)  # (platform, channel, count)
    platforms: list[tuple[str, int]] = field(default_factory=list)


def known_facets(db: Database, user_id: str, limit: int = FACET_LIMIT) -> Facets:
    """One grouped query per facet over the user's stored messages (empty names left out)."""
    count = func.count().label("n")
    mine = RawMessageRow.user_id == user_id
    with db.read() as session:
        people = session.execute(
            select(RawMessageRow.person, count)
            .where(mine, RawMessageRow.person != "")
            .group_by(RawMessageRow.person)
            .order_by(count.desc(), RawMessageRow.person)
            .limit(limit)
        ).all()
        channels = session.execute(
            select(RawMessageRow.platform, RawMessageRow.channel, count)
            .where(mine, RawMessageRow.channel != "")
            .group_by(RawMessageRow.platform, RawMessageRow.channel)
            .order_by(count.desc(), RawMessageRow.channel)
            .limit(limit)
        ).all()
        platforms = session.execute(
            select(RawMessageRow.platform, count)
            .where(mine)
            .group_by(RawMessageRow.platform)
            .order_by(count.desc(), RawMessageRow.platform)
        ).all()
    return Facets(
        people=[(p, int(n)) for p, n in people],
        channels=[(p, c, int(n)) for p, c, n in channels],
        platforms=[(p, int(n)) for p, n in platforms],
    )
