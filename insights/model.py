"""Insight values: what an extractor finds in a conversation and what the store hands out."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from app.core.clock import iso
from app.core.domain import DEFAULT_USER_ID


class Importance(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Urgency(StrEnum):
    IMMEDIATE = "immediate"
    URGENT = "urgent"
    MEDIUM = "medium"
    LOW = "low"


class InsightKind(StrEnum):
    DECISION = "decision"
    ACTION_ITEM = "action_item"
    DEADLINE = "deadline"
    QUESTION = "question"
    BLOCKER = "blocker"
    MEETING = "meeting"


class InsightStatus(StrEnum):
    """Open loops are `open`; a completion message, an answer or a recovery resolves them."""

    OPEN = "open"
    RESOLVED = "resolved"


TASK_LABELS = (
    "incident",
    "bug_report",
    "feature_request",
    "code_review",
    "release",
    "documentation",
    "meeting",
    "decision",
    "question",
    "follow_up",
    "general",
)

# Fixed namespace so the same (botId, dedupeKey) gives the same id on every machine.
INSIGHT_NAMESPACE = uuid.UUID("6f1d3c8e-5b57-4f39-9b0c-2f4e7d1a9c11")


def insight_id(bot_id: str, dedupe_key: str, user_id: str = DEFAULT_USER_ID) -> str:
    """Spec: "UUID, deterministic from botId + dedupeKey", made per user.

    The default user keeps the spec's ids (existing data and links stay valid); any other user's
    ids also hash the user, so two users' insights with the same key never share a row.
    """
    name = f"{bot_id}\x1f{dedupe_key}"
    if user_id != DEFAULT_USER_ID:
        name = f"{user_id}\x1f{name}"
    return str(uuid.uuid5(INSIGHT_NAMESPACE, name))


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """The slice of a stored message an extractor reads; `timestamp` is Unix ms (UTC)."""

    message_id: str
    person: str
    timestamp: int
    content: str
    platform: str = ""
    channel: str = ""
    bot_id: str | None = None


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    at: int
    event: str
    message_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"at": iso(self.at), "event": self.event, "messageId": self.message_id}

    @classmethod
    def from_dict(cls, data: dict[str, Any], at_ms: int) -> TimelineEvent:
        return cls(at=at_ms, event=str(data.get("event", "")), message_id=data.get("messageId"))


@dataclass(frozen=True, slots=True)
class InsightDraft:
    """One structured record found by an extractor, before storage and weights."""

    kind: InsightKind
    title: str
    description: str
    importance: Importance
    urgency: Urgency
    task_label: str
    dedupe_key: str
    evidence: tuple[str, ...]
    occurred_at: int
    platform: str = ""
    channel: str = ""
    author: str | None = None
    owner: str | None = None
    due_at: int | None = None
    addressed_to: tuple[str, ...] = ()
    status: InsightStatus = InsightStatus.OPEN
    details: tuple[str, ...] = ()
    timeline: tuple[TimelineEvent, ...] = ()

    def with_changes(self, **changes: Any) -> InsightDraft:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class InsightWeights:
    """Spec `insightWeights`, per user. Counts come from the access-event log at read time."""

    access_count_30d: int = 0
    access_count_7d: int = 0
    current_event_rank: int | None = None
    custom_weight_multiplier: float = 1.0
    favorite: bool = False
    favorited_at: int | None = None
    last_viewed_at: int | None = None
    view_boost_at: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "accessCount30d": self.access_count_30d,
            "accessCount7d": self.access_count_7d,
            "currentEventRank": self.current_event_rank,
            "customWeightMultiplier": round(self.custom_weight_multiplier, 6),
        }


@dataclass(frozen=True, slots=True)
class Insight:
    """A stored insight with its per-user weights."""

    id: str
    bot_id: str
    user_id: str
    draft: InsightDraft
    created_at: int
    updated_at: int
    weights: InsightWeights = field(default_factory=InsightWeights)
    lifecycle: str = "open"  # open | done | dismissed | snoozed (insights/lifecycle.py)
    snoozed_until: int | None = None
    lifecycle_set_at: int | None = None  # when the user last set it (shown in the timeline)

    @property
    def kind(self) -> InsightKind:
        return self.draft.kind

    def _user_event(self) -> list[dict[str, Any]]:
        """What the user did to it, after what the conversation said."""
        if self.lifecycle_set_at is None:
            return []
        return [
            {"at": iso(self.lifecycle_set_at), "event": f"you set it {self.lifecycle}", "messageId": None}
        ]

    def to_dict(self, *, value_score: float | None = None, state: str | None = None) -> dict[str, Any]:
        d = self.draft
        data: dict[str, Any] = {
            "id": self.id,
            "botId": self.bot_id,
            "dedupeKey": d.dedupe_key,
            "kind": d.kind.value,
            "title": d.title,
            "description": d.description,
            "importance": d.importance.value,
            "urgency": d.urgency.value,
            "taskLabel": d.task_label,
            "status": d.status.value,
            "lifecycle": self.lifecycle,
            "snoozedUntil": iso(self.snoozed_until),
            "owner": d.owner,
            "author": d.author,
            "addressedTo": list(d.addressed_to),
            "dueAt": iso(d.due_at),
            "occurredAt": iso(d.occurred_at),
            "platform": d.platform,
            "channel": d.channel,
            "details": list(d.details),
            "timeline": [t.to_dict() for t in d.timeline] + self._user_event(),
            "evidence": list(d.evidence),
            "favorite": self.weights.favorite,
            "insightWeights": self.weights.to_dict(),
            "createdAt": iso(self.created_at),
            "updatedAt": iso(self.updated_at),
        }
        if value_score is not None:
            data["valueScore"] = round(value_score, 6)
        if state is not None:
            data["state"] = state
        return data
