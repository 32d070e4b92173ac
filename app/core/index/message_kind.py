"""Messages as a corpus kind: their AAAK document, keyword text, prefilter values and stamps."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, func, or_, select, update
from sqlalchemy.orm import Session

from app.core import aaak
from app.core.clock import Clock
from app.core.domain import Attachment
from app.core.index.corpus import IndexDoc, KindSpec
from app.core.storage.keyword import MESSAGE_KIND
from app.core.storage.models import RawMessageRow

MESSAGE_VECTOR_COLUMNS = ("user_id", "platform", "channel", "person", "tier", "timestamp", "archived")
MESSAGE_SPEC = KindSpec(
    kind=MESSAGE_KIND,
    collection="messages",
    columns=MESSAGE_VECTOR_COLUMNS,
    keyword_join="JOIN raw_messages m ON m.id = messages_fts.rowid",
    keyword_columns={
        "user_id": "m.user_id",
        "platform": "m.platform",
        "channel": "m.channel",
        "person": "m.person",
        "tier": "m.memory_stage",
        "timestamp": "m.timestamp",
        "archived": "(m.archived_at IS NOT NULL)",
    },
)


def encode_row(row: RawMessageRow) -> aaak.EncodedRecord:
    return aaak.encode_record(
        content=row.content,
        timestamp=row.timestamp,
        tier=row.memory_stage,
        platform=row.platform,
        channel=row.channel,
        person=row.person,
        bot_id=row.bot_id,
        attachments=[Attachment.from_dict(a) for a in row.attachments or []],
        metadata=row.metadata_ or {},
    )


# The format `keyword_body` writes. Raise it whenever what the body holds changes: existing
# entries are then rewritten once in the background (keyword_format.py). 1: text, person and
# channel; 2: also the attachments' names (session 6).
KEYWORD_FORMAT = 2


def keyword_body(row: RawMessageRow) -> str:
    """What exact-match search sees: the normalized text, the names of its attachments (file
    names, photo captions: "the contract pdf Anna sent"), and who and where."""
    names = " ".join(str(a.get("name") or "") for a in row.attachments or [] if isinstance(a, dict))
    text, names = aaak.normalize_whitespace(row.content), aaak.normalize_whitespace(names)
    return " ".join(p for p in (text, names, row.person, row.channel) if p)


def vector_columns(row: RawMessageRow) -> dict[str, object]:
    return {
        "user_id": row.user_id,
        "platform": row.platform,
        "channel": row.channel,
        "person": row.person,
        "tier": row.memory_stage,
        "timestamp": row.timestamp,
        "archived": row.archived_at is not None,
    }


def message_doc(row: RawMessageRow) -> IndexDoc:
    encoded = encode_row(row)
    return IndexDoc(
        key=str(row.id),
        user_id=row.user_id,
        document=encoded.document,
        keyword_text=keyword_body(row),
        columns=vector_columns(row),
        content_hash=encoded.content_hash,
        stamped_hash=row.embedding_content_hash,
    )


class MessageSource:
    """raw_messages as the corpus's source of truth for the message kind."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    def keys(self, session: Session) -> set[str]:
        return {str(i) for i in session.scalars(select(RawMessageRow.id))}

    def count(self, session: Session) -> int:
        """How many keys there are, without reading them (the repair's quick check at 1M)."""
        return int(session.scalar(select(func.count()).select_from(RawMessageRow)) or 0)

    def unembedded(self, session: Session, model_id: str, dimensions: int) -> list[str]:
        ids = session.scalars(
            select(RawMessageRow.id).where(
                or_(
                    RawMessageRow.embedding_content_hash.is_(None),
                    RawMessageRow.embedding_model.is_(None),
                    RawMessageRow.embedding_model != model_id,
                    RawMessageRow.embedding_dimensions != dimensions,
                )
            )
        )
        return [str(i) for i in ids]

    def pending(self, session: Session, after: int, limit: int) -> list[int]:
        """The backlog's next row ids after `after`: rows stored but not embedded yet (no stamp).

        Served by the partial index `ix_raw_messages_unembedded`, so it never scans every message."""
        return list(
            session.scalars(
                select(RawMessageRow.id)
                .where(RawMessageRow.embedding_content_hash.is_(None), RawMessageRow.id > after)
                .order_by(RawMessageRow.id)
                .limit(limit)
            )
        )

    def pending_count(self, session: Session) -> int:
        """How many rows the backlog holds (same partial index)."""
        return int(
            session.scalar(
                select(func.count())
                .select_from(RawMessageRow)
                .where(RawMessageRow.embedding_content_hash.is_(None))
            )
            or 0
        )

    def documents(self, session: Session, keys: Sequence[str]) -> list[IndexDoc]:
        ids = [int(k) for k in keys]
        rows = session.scalars(select(RawMessageRow).where(RawMessageRow.id.in_(ids)))
        return [message_doc(r) for r in rows]

    def restamp(self, session: Session, old_model: str, model_id: str, dimensions: int) -> None:
        session.execute(
            update(RawMessageRow)
            .where(RawMessageRow.embedding_model == old_model)
            .values(embedding_model=model_id, embedding_dimensions=dimensions)
        )

    def stamp(self, session: Session, docs: Sequence[IndexDoc], model_id: str, dimensions: int) -> None:
        if not docs:
            return
        now = self.clock.now_ms()
        # One executemany, not an ORM update per row: this runs for every ingested message.
        session.connection().execute(
            update(RawMessageRow.__table__)
            .where(RawMessageRow.__table__.c.id == bindparam("row_id"))
            .values(
                embedding_model=model_id,
                embedding_content_hash=bindparam("hash"),
                embedding_dimensions=dimensions,
                embedding_updated_at=now,
            ),
            [{"row_id": int(d.key), "hash": d.content_hash} for d in docs],
        )
