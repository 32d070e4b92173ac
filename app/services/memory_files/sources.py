"""Adapters from features to the page builder's plain values: insights as Items, contacts as ContactInfo."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import String, and_, cast, func, or_, select

from app.core.clock import Clock
from app.core.storage.db import Database
from app.services.memory_files import snapshot
from app.services.memory_files.plan import ContactInfo
from app.services.memory_files.render import Item
from connectors.identity import IdentityStore
from insights import lifecycle
from insights.model import InsightStatus
from insights.tables import InsightRow


@dataclass(frozen=True, slots=True)
class ItemScope:
    """Which insights one page can use: named people, conversations, title words (any of them)."""

    names: tuple[str, ...] = ()
    conversations: tuple[tuple[str, str], ...] = ()
    words: tuple[str, ...] = ()


ItemLoader = Callable[[ItemScope | None], list[Item]]


def insight_items(db: Database, user_id: str, clock: Clock) -> ItemLoader:
    """Insights (all, or those a scope may need), newest first, each linked to its first evidence.

    Reads only the columns a page shows, in one query: pages need what an insight says, not its
    ranking, and ranking tens of thousands of insights through the service costs seconds. A scope
    is a coarse SQL prefilter; the page builder applies the exact rules.
    """
    t = InsightRow
    columns = (
        t.id,
        t.kind, t.title, t.status, t.owner, t.author, t.addressed_to, t.due_at, t.occurred_at,
        t.platform, t.channel, t.evidence,
    )  # fmt: skip

    def load(scope: ItemScope | None = None) -> list[Item]:
        query = select(*columns).where(t.user_id == user_id).order_by(t.occurred_at.desc())
        if scope is not None:
            clauses = [func.lower(t.owner) == n for n in scope.names] + [
                func.lower(t.author) == n for n in scope.names
            ]
            # addressed_to is a JSON list: a text match finds candidates, the builder checks exactly.
            clauses += [
                func.lower(cast(t.addressed_to, String)).contains(f'{n}"', autoescape=True)
                for n in scope.names
            ]
            clauses += [and_(t.platform == p, t.channel == c) for p, c in scope.conversations]
            clauses += [
                func.lower(t.title).contains(w.lower(), autoescape=True) for w in scope.words if w.strip()
            ]
            if not clauses:
                return []
            query = query.where(or_(*clauses))
        with db.read() as session:
            rows = session.execute(query).all()
            states = lifecycle.LifecycleStore().states(session, user_id)
        now = clock.now_ms()
        # The user's word wins (issue 18): dismissed items leave the pages, done and snoozed ones
        # are no longer open loops.
        marked = {r.id: lifecycle.effective(InsightStatus(r.status), states.get(r.id), now)[0] for r in rows}
        rows = [r for r in rows if marked[r.id] != lifecycle.DISMISSED]
        firsts = [(r.platform, r.evidence[0]) for r in rows if r.evidence]
        ids = snapshot.message_ids(db, user_id, firsts)
        return [
            Item(
                kind=r.kind,
                title=r.title,
                open=marked[r.id] == lifecycle.OPEN,
                occurred_at=r.occurred_at,
                platform=r.platform,
                channel=r.channel,
                owner=r.owner,
                author=r.author,
                addressed_to=tuple(r.addressed_to or ()),
                due_at=r.due_at,
                source_id=ids.get((r.platform, r.evidence[0])) if r.evidence else None,
            )
            for r in rows
        ]

    return load


def contact_infos(identities: IdentityStore) -> Callable[[], list[ContactInfo]]:
    def load() -> list[ContactInfo]:
        return [
            ContactInfo(c.id, c.display_name, tuple((i.platform, i.person) for i in c.identities))
            for c in identities.contacts()
        ]

    return load
