"""The lifecycle a person gives an insight: open → done / dismissed / snoozed until a time.

The user's choice is stored apart from the extracted row (re-extraction never undoes it); without
one, an item the conversation closed ("done", "fixed", answered) counts as done.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from insights.model import InsightStatus
from insights.tables import InsightIdentityRow, InsightStateRow

OPEN, DONE, DISMISSED, SNOOZED = "open", "done", "dismissed", "snoozed"
LIFECYCLES = (OPEN, DONE, DISMISSED, SNOOZED)
FILTERS = (*LIFECYCLES, "all")


@dataclass(frozen=True, slots=True)
class UserState:
    state: str
    until: int | None
    at: int


def effective(status: InsightStatus, user: UserState | None, now: int) -> tuple[str, int | None]:
    """(lifecycle, snoozed until): the user's word wins; a snooze that ran out is open again."""
    if user is not None:
        if user.state == SNOOZED:
            return (SNOOZED, user.until) if user.until is not None and user.until > now else (OPEN, None)
        return user.state, None
    return (DONE if status is InsightStatus.RESOLVED else OPEN), None


class LifecycleStore:
    """User-set states and the user's own names (caller owns the session)."""

    def states(self, session: Session, user_id: str) -> dict[str, UserState]:
        rows = session.scalars(select(InsightStateRow).where(InsightStateRow.user_id == user_id))
        return {r.insight_id: UserState(r.state, r.until, r.at) for r in rows}

    def set_state(
        self, session: Session, *, user_id: str, insight: str, state: str, until: int | None, at: int
    ) -> None:
        row = session.get(InsightStateRow, (insight, user_id))
        if row is None:
            session.add(InsightStateRow(insight_id=insight, user_id=user_id, state=state, until=until, at=at))
        else:
            row.state, row.until, row.at = state, until, at

    def identities(self, session: Session, user_id: str) -> list[str]:
        rows = session.scalars(
            select(InsightIdentityRow)
            .where(InsightIdentityRow.user_id == user_id)
            .order_by(InsightIdentityRow.at)
        )
        return [r.name for r in rows]

    def set_identities(self, session: Session, *, user_id: str, names: Iterable[str], at: int) -> None:
        session.execute(delete(InsightIdentityRow).where(InsightIdentityRow.user_id == user_id))
        for n, name in enumerate(dict.fromkeys(names)):
            session.add(InsightIdentityRow(user_id=user_id, name=name, at=at + n))  # keeps the given order
