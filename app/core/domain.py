"""Domain values shared by every layer: messages as they arrive, as stored, and as found."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

DEFAULT_USER_ID = "local"


class Tier(StrEnum):
    """Memory lifecycle stage of a raw message (spec: memoryStage)."""

    SHORT = "short"
    MID = "mid"
    LONG = "long"


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file or media reference carried by a message (spec: {name, url, contentType, sizeBytes})."""

    name: str
    url: str | None = None
    content_type: str | None = None
    size_bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "url": self.url,
            "contentType": self.content_type,
            "sizeBytes": self.size_bytes,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Attachment:
        size = data.get("sizeBytes", data.get("size_bytes"))
        return cls(
            name=str(data.get("name") or data.get("url") or "attachment"),
            url=data.get("url"),
            content_type=data.get("contentType", data.get("content_type")),
            size_bytes=int(size) if size is not None else None,
        )


@dataclass(frozen=True, slots=True)
class RawMessage:
    """One message as a connector or importer yields it, before storage.

    `message_id` is unique per platform and stable across live sync and export import, so
    the same message never lands twice. `timestamp` is Unix milliseconds (UTC).
    """

    platform: str
    message_id: str
    channel: str
    person: str
    timestamp: int
    content: str
    bot_id: str | None = None
    user_id: str = DEFAULT_USER_ID
    attachments: tuple[Attachment, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    importance_score: float | None = None
    # Where the item sat in its input (file line or batch position), so an item refused at
    # storage time is reported where the user can find it. Not part of the message's identity.
    line: int | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MessageRecord:
    """A stored raw message (a row of raw_messages) as the services hand it out."""

    id: int
    user_id: str
    platform: str
    message_id: str
    channel: str
    person: str
    bot_id: str | None
    timestamp: int
    created_at: int
    content: str | None  # None when archived: the verbatim text is kept but hidden
    attachments: tuple[Attachment, ...]
    metadata: dict[str, Any]
    memory_stage: Tier
    access_count: int
    last_access_at: int | None
    importance_score: float | None
    archived_at: int | None
    is_pinned: bool
    summary_ref_id: str | None
    embedding_model: str | None = None
    embedding_content_hash: str | None = None
    embedding_dimensions: int | None = None
    embedding_updated_at: int | None = None

    @property
    def has_media(self) -> bool:
        return bool(self.attachments)


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Structured search constraints; dates are Unix ms, inclusive."""

    platforms: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    persons: tuple[str, ...] = ()
    since: int | None = None
    until: int | None = None
    include_archived: bool = False

    def is_empty(self) -> bool:
        return not (self.platforms or self.channels or self.persons or self.since or self.until)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result with provenance. `kind` is message, summary or chunk."""

    id: str
    kind: str
    content: str
    score: float
    platform: str | None
    channel: str | None
    person: str | None
    timestamp: int | None
    tier: str | None
    message_id: str | None = None
    summary_id: str | None = None
    document_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Calibrated relevance in [0, 1], the same scale for every kind (app/core/search/relevance.py);
    # None from a source that does not compute it yet.
    relevance: float | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "content": self.content,
            "score": round(self.score, 6),
            "platform": self.platform,
            "channel": self.channel,
            "person": self.person,
            "timestamp": self.timestamp,
            "tier": self.tier,
        }
        if self.message_id is not None:
            data["message_id"] = self.message_id
        if self.summary_id is not None:
            data["summary_id"] = self.summary_id
        if self.document_id is not None:
            data["document_id"] = self.document_id
        if self.relevance is not None:
            data["relevance"] = round(self.relevance, 4)
        if self.extra:
            data.update(self.extra)
        return data


@dataclass(frozen=True, slots=True)
class IngestError:
    """Why one input item was not stored; `line` is 1-based where the input has lines."""

    reason: str
    line: int | None = None
    message_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "message_id": self.message_id, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What an ingest call changed."""

    imported: int = 0
    duplicates: int = 0
    updated: int = 0
    errors: tuple[IngestError, ...] = ()
    ids: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "duplicates": self.duplicates,
            "updated": self.updated,
            "errors": [e.to_dict() for e in self.errors],
        }

    def merged(self, other: IngestResult) -> IngestResult:
        return IngestResult(
            imported=self.imported + other.imported,
            duplicates=self.duplicates + other.duplicates,
            updated=self.updated + other.updated,
            errors=self.errors + other.errors,
            ids=self.ids + other.ids,
        )
