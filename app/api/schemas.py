"""Pydantic request/response models of the REST API (the only place REST shapes are defined)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr

from app.core.clock import iso
from app.core.domain import MessageRecord

MAX_BATCH = 10_000
MAX_ID = 2**62  # SQLite integers are signed 64-bit; larger ids cannot exist


def _integral(value: Any) -> Any:
    # JSON Schema counts 42.0 as an integer; a strict model would refuse it.
    return int(value) if isinstance(value, float) and value.is_integer() else value


# In a strict request model: JSON integers (and integral floats) are ints, never "5" or true.
# Bounds go before it (`Annotated[int, Field(ge=1), INTEGRAL]`) so the schema shows them.
INTEGRAL = BeforeValidator(_integral)
JsonInt = Annotated[int, INTEGRAL]


class ErrorOut(BaseModel):
    """Every error response: a stable machine-readable code and a human message."""

    error: str = Field(description="stable code, e.g. not_found, invalid_input, unauthorized")
    message: str
    hint: str | None = None


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": text}
    for status, text in (
        (400, "invalid input"),
        (401, "missing or wrong bearer token"),
        (403, "foreign Origin"),
        (404, "no such record"),
        (413, "request body too large"),
        (409, "conflict: duplicate, lock held, or a setting that must be filled in first"),
        (415, "unsupported file type or export format"),
        (421, "foreign Host header"),
        (422, "request does not match the schema"),
        (429, "rate limited by a connected platform"),
        (502, "an optional LLM endpoint or a connected platform failed"),
        (503, "storage unavailable (disk full, database locked or damaged) or model missing"),
    )
}

# A point in time as the search filters take it: an ISO-8601 date or date-time, or Unix ms.
# Declared so generated clients (and schema fuzzers) send what the parser reads.
TIME_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "format": "date-time"},
        {"type": "string", "format": "date"},
        {"type": "string", "pattern": "^-?[0-9]{1,18}$"},
        {"type": "string", "maxLength": 0},  # empty: no bound, as when the parameter is left out
        {"type": "integer", "minimum": 1 - 10**18, "maximum": 10**18 - 1},
        {"type": "null"},
    ]
}


class MessageIn(BaseModel):
    """One message in the JSONL field format. Each item is checked on its own by the core parser,
    so a bad item is reported in `errors` (with its 1-based position as `line`) and the rest imports."""

    model_config = ConfigDict(extra="allow")

    platform: Any = Field(None, description="required; e.g. slack, discord, telegram, note")
    message_id: Any = Field(None, description="required; unique per platform")
    channel: Any = Field(None, description="channel, chat or conversation name")
    person: Any = Field(None, description="author")
    bot_id: Any = Field(None, description="bot/workspace the message came through")
    timestamp: Any = Field(None, description="required; ISO-8601 or Unix milliseconds")
    content: Any = Field(None, description="required; the message text")
    attachments: Any = Field(None, description="list of {name, url, contentType, sizeBytes}")
    metadata: Any = Field(None, description="JSON object of extra fields")


class IngestIn(BaseModel):
    messages: list[MessageIn] = Field(..., max_length=MAX_BATCH)


class IngestErrorOut(BaseModel):
    line: int | None = Field(None, description="1-based position of the item in `messages`")
    message_id: str | None
    reason: str


class IngestOut(BaseModel):
    imported: int
    duplicates: int
    updated: int
    errors: list[IngestErrorOut]
    ids: list[int] = Field(description="record ids of the imported or updated messages")


class SearchIn(BaseModel):
    # Strict: JSON types are taken as declared (`true` is not 1, "5" is not 5).
    model_config = ConfigDict(strict=True)
    query: str = Field(..., min_length=1, max_length=4000)
    limit: Annotated[int, Field(ge=1, le=200), INTEGRAL] = 10
    platform: list[str] | str | None = None
    channel: list[str] | str | None = None
    person: list[str] | str | None = None
    since: StrictStr | JsonInt | None = Field(
        None, description="ISO date/time or Unix ms", json_schema_extra=TIME_SCHEMA
    )
    until: StrictStr | JsonInt | None = Field(
        None,
        description="ISO date/time or Unix ms; a bare date means end of day",
        json_schema_extra=TIME_SCHEMA,
    )
    loose: bool = Field(False, description="show the nearest hits even when none is a close match")
    documents: bool = Field(False, description="also search knowledge-base documents (one ranking)")
    insights: bool = Field(False, description="also search insights (one ranking)")
    reveal: bool = Field(
        False, description="return detected secrets verbatim (refused unless [privacy] allow_reveal = true)"
    )


class HitOut(BaseModel):
    """A search hit (same fields as `strata search --json`)."""

    model_config = ConfigDict(extra="allow")

    id: str
    kind: str
    content: str
    score: float
    platform: str | None
    channel: str | None
    person: str | None
    timestamp: int | None
    tier: str | None
    relevance: float | None = Field(None, description="calibrated relevance 0–1, same scale for every kind")


class SearchOut(BaseModel):
    query: str
    hits: list[HitOut]
    understood: dict[str, Any] = Field(
        default_factory=dict, description="query understanding applied: date range, people, channels"
    )
    loose: bool = False
    no_close_match: bool = Field(False, description="nothing reached the relevance floor (try loose)")
    message: str | None = None


class MessageOut(BaseModel):
    id: int
    platform: str
    message_id: str
    channel: str
    person: str
    bot_id: str | None
    timestamp: int
    time: str | None
    created_at: int
    content: str | None = Field(description="null when archived by the forgetting engine")
    attachments: list[dict[str, Any]]
    metadata: dict[str, Any]
    tier: str
    access_count: int
    last_access_at: int | None
    importance_score: float | None
    archived_at: int | None
    is_pinned: bool
    summary_ref_id: str | None
    embedding_model: str | None
    neighbours: list[MessageOut] | None = Field(
        None, description="surrounding messages of the same conversation, oldest first (with ?context=N)"
    )

    @classmethod
    def from_record(cls, record: MessageRecord, neighbours: list[MessageOut] | None = None) -> MessageOut:
        return cls(
            id=record.id,
            platform=record.platform,
            message_id=record.message_id,
            channel=record.channel,
            person=record.person,
            bot_id=record.bot_id,
            timestamp=record.timestamp,
            time=iso(record.timestamp),
            created_at=record.created_at,
            content=record.content,
            attachments=[a.to_dict() for a in record.attachments],
            metadata=record.metadata,
            tier=str(record.memory_stage),
            access_count=record.access_count,
            last_access_at=record.last_access_at,
            importance_score=record.importance_score,
            archived_at=record.archived_at,
            is_pinned=record.is_pinned,
            summary_ref_id=record.summary_ref_id,
            embedding_model=record.embedding_model,
            neighbours=neighbours,
        )


class PinIn(BaseModel):
    # Strict: `{"pinned": 0}` is a mistake to report (422), not a quiet unpin.
    pinned: StrictBool = True


class DeletedOut(BaseModel):
    deleted: int


# -- bulk deletion, export and backup (issue 13, lifecycle) -------------------------------------
class MessageSelectorIn(BaseModel):
    """Which messages a bulk deletion means; at least one field is required."""

    model_config = ConfigDict(extra="forbid")

    platform: str | None = Field(None, max_length=64)
    channel: str | None = Field(None, max_length=512)
    person: str | None = Field(None, max_length=512)
    since: str | None = Field(
        None, description="ISO-8601 date/time or Unix ms, inclusive", json_schema_extra=TIME_SCHEMA
    )
    before: str | None = Field(
        None, description="ISO-8601 date/time or Unix ms, exclusive", json_schema_extra=TIME_SCHEMA
    )


class DeletionPlanOut(BaseModel):
    selector: dict[str, Any]
    count: int
    first: str | None
    last: str | None
    byChannel: list[dict[str, Any]]
    sample: list[dict[str, Any]]


class DeletionReportOut(BaseModel):
    deleted: int
    ids: list[int]
    filesPurged: bool
    derived: dict[str, int]
    vectorsErased: bool = True  # erase: False while a host's worker still rewrites LanceDB fragments


class FolderNameIn(BaseModel):
    """Name of the new folder under the data dir's `exports/` or `backups/` (default: a timestamp).

    REST callers (agents included) cannot write anywhere else on the computer.
    """

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class StatsOut(BaseModel):
    """Counts and index facts; features may add keys."""

    model_config = ConfigDict(extra="allow")

    messages: int
