"""`raw_messages` as the source of the sentence-key kind: keys derived per message, stamped per message.

A message's keys are computed from its row whenever needed (they are rules over its text), so
SQLite holds only a stamp per message (`message_key_stamps`): how many keys, from which text,
for which model. The backlog walks messages (not keys): `pending` yields message ids, and
`documents` of a message id gives all its keys, or one empty document for a message without
keys, so that it is stamped too (the backlog never embeds an empty document). Keys follow the
message's own vector: a message is pending only once its own embedding is stamped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import (
    BigInteger,
    ForeignKey,
    Integer,
    String,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Row
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.core.clock import Clock
from app.core.index.corpus import IndexDoc
from app.core.index.key_text import message_keys
from app.core.index.message_keys import key_docs, message_of
from app.core.storage.db import chunked
from app.core.storage.models import Base, RawMessageRow


class MessageKeyStampRow(Base):
    """Which messages have their sentence keys embedded (see the module docstring)."""

    __tablename__ = "message_key_stamps"

    message_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("raw_messages.id", ondelete="CASCADE"), primary_key=True
    )
    key_count: Mapped[int] = mapped_column(Integer)
    text_hash: Mapped[str] = mapped_column(String(32))
    embedding_model: Mapped[str] = mapped_column(String(200))
    embedding_dimensions: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[int] = mapped_column(BigInteger)


_STAMP = MessageKeyStampRow


def _needs_keys(model_id: str | None = None, dimensions: int | None = None) -> object:
    """Rows whose keys are missing or stale (the text changed, or another model)."""
    terms = [_STAMP.message_id.is_(None), _STAMP.text_hash != RawMessageRow.text_hash]
    if model_id is not None:
        terms += [_STAMP.embedding_model != model_id, _STAMP.embedding_dimensions != dimensions]
    # Keys follow the message's own vector (and never an archived message: its text is gone).
    return and_(
        RawMessageRow.embedding_content_hash.is_not(None), RawMessageRow.archived_at.is_(None), or_(*terms)
    )


def _joined(*columns: object) -> object:
    return (
        select(*columns).select_from(RawMessageRow).outerjoin(_STAMP, _STAMP.message_id == RawMessageRow.id)
    )


class MessageKeySource:
    """The sentence-key kind's rows in SQLite (an `IndexSource` and a `BacklogSource`)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    # -- IndexSource --------------------------------------------------------------------------
    def keys(self, session: Session) -> set[str]:
        """Stamped messages' keys from their stamps; the rest are not keys yet (missing)."""
        found = session.execute(
            select(_STAMP.message_id, _STAMP.key_count)
            .join(RawMessageRow, RawMessageRow.id == _STAMP.message_id)
            .where(RawMessageRow.archived_at.is_(None))
        )
        stamped = {f"{m}:{n}" for m, count in found for n in range(count)}
        return stamped | set(self._unstamped_keys(session, None, None))

    def unembedded(self, session: Session, model_id: str, dimensions: int) -> list[str]:
        return self._unstamped_keys(session, model_id, dimensions)

    def _unstamped_keys(self, session: Session, model_id: str | None, dimensions: int | None) -> list[str]:
        ids = list(session.scalars(_joined(RawMessageRow.id).where(_needs_keys(model_id, dimensions))))
        return [d.key for d in self.documents(session, [str(i) for i in ids]) if d.document]

    def documents(self, session: Session, keys: Sequence[str]) -> list[IndexDoc]:
        """Key documents: a message id stands for all its keys (and for one empty document when
        it has none); `<message id>:<n>` for that key alone."""
        wanted: dict[int, set[str] | None] = defaultdict(set)
        for key in keys:
            message = int(message_of(key))
            if ":" not in key:
                wanted[message] = None
            elif wanted[message] is not None:
                wanted[message].add(key)  # type: ignore[union-attr]
        docs: list[IndexDoc] = []
        for row in self._key_rows(session, list(wanted)):
            built = key_docs(row, content_hash=row.text_hash, stamped_hash=row.stamped)
            only = wanted[row.id]
            if only is None:
                docs += built or [_empty(row)]
            else:
                docs += [d for d in built if d.key in only]
        return docs

    @staticmethod
    def _key_rows(session: Session, ids: list[int]) -> Iterator[Row[Any]]:
        # In slices: a repair asks for every unstamped message at once (~1M on a bulk-built
        # archive), far past SQLite's limit on an IN list's parameters.
        for part in chunked(ids):
            yield from session.execute(
                _joined(*_KEY_COLUMNS, _STAMP.text_hash.label("stamped")).where(
                    RawMessageRow.id.in_(part), RawMessageRow.archived_at.is_(None)
                )
            )

    def stamp(self, session: Session, docs: Sequence[IndexDoc], model_id: str, dimensions: int) -> None:
        """Stamp the messages of `docs`, with their whole key count (a repair may embed only some
        of a message's keys in one batch)."""
        ids = {int(message_of(d.key)) for d in docs}
        if not ids:
            return
        rows = session.execute(select(*_KEY_COLUMNS).where(RawMessageRow.id.in_(list(ids))))
        now = self.clock.now_ms()
        values = [
            {
                "message_id": row.id,
                "key_count": len(message_keys(row.person, row.content)),
                "text_hash": row.text_hash,
                "embedding_model": model_id,
                "embedding_dimensions": dimensions,
                "updated_at": now,
            }
            for row in rows
        ]
        if not values:
            return  # deleted meanwhile
        # Replace (portable SQL: no dialect's upsert).
        session.execute(delete(_STAMP).where(_STAMP.message_id.in_([v["message_id"] for v in values])))
        session.execute(insert(_STAMP), values)

    def restamp(self, session: Session, old_model: str, model_id: str, dimensions: int) -> None:
        session.execute(
            update(_STAMP)
            .where(_STAMP.embedding_model == old_model)
            .values(embedding_model=model_id, embedding_dimensions=dimensions)
        )

    # -- BacklogSource ------------------------------------------------------------------------
    def pending(self, session: Session, after: int, limit: int) -> list[int]:
        """The next messages after `after` whose keys are missing or stale."""
        return list(
            session.scalars(
                _joined(RawMessageRow.id)
                .where(RawMessageRow.id > after, _needs_keys())
                .order_by(RawMessageRow.id)
                .limit(limit)
            )
        )

    def pending_count(self, session: Session) -> int:
        return int(session.scalar(_joined(func.count()).where(_needs_keys())) or 0)

    def forget(self, session: Session, message_ids: Sequence[int]) -> None:
        """Drop the stamps of messages whose keys were removed (deleted, archived)."""
        if message_ids:
            session.execute(delete(_STAMP).where(_STAMP.message_id.in_(list(message_ids))))


_KEY_COLUMNS = (
    RawMessageRow.id,
    RawMessageRow.user_id,
    RawMessageRow.platform,
    RawMessageRow.channel,
    RawMessageRow.person,
    RawMessageRow.timestamp,
    RawMessageRow.content,
    RawMessageRow.text_hash,
)


def _empty(row: object) -> IndexDoc:
    """A message without keys, still to be stamped (the backlog embeds no empty document)."""
    return IndexDoc(
        key=f"{row.id}:",  # type: ignore[attr-defined]
        user_id=row.user_id,  # type: ignore[attr-defined]
        document="",
        keyword_text="",
        columns={},
        content_hash=row.text_hash,  # type: ignore[attr-defined]
    )
