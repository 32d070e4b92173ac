"""LLM extractor: a model behind the guarded `LLM` seam fills a JSON schema of insights; the rule
extractor takes over whenever the model is unavailable, over the daily cap, or answers nonsense.
Redaction, fencing, the cap and the usage ledger are the seam's job (app/core/llm/guard.py)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import UTC, datetime, time
from typing import Any

from app.core.clock import iso
from app.core.errors import LLMCapReached, LLMError
from app.core.llm.base import LLM
from insights.extractors import Extractor, labels
from insights.model import (
    ChatMessage,
    Importance,
    InsightDraft,
    InsightKind,
    InsightStatus,
    TimelineEvent,
    Urgency,
)

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You extract trackable facts from a chat conversation. Return only insights worth tracking: "
    "decisions that were made, action items (owner = the person who must act, due = ISO date if stated), "
    "deadlines, questions still unanswered at the end, blockers or incidents, and scheduled meetings. "
    "Ignore jokes, sarcasm, small talk and proposals nobody agreed to. Every insight cites the ids of the "
    "messages it comes from in `evidence`, the first one being where it was said."
)
_ENUM = {
    "kind": [k.value for k in InsightKind],
    "importance": [v.value for v in Importance],
    "urgency": [v.value for v in Urgency],
    "status": [v.value for v in InsightStatus],
}
INSIGHT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["insights"],
    "properties": {
        "insights": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": [
                    "kind",
                    "title",
                    "description",
                    "importance",
                    "urgency",
                    "taskLabel",
                    "owner",
                    "due",
                    "status",
                    "evidence",
                ],
                "properties": {
                    "kind": {"type": "string", "enum": _ENUM["kind"]},
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "importance": {"type": "string", "enum": _ENUM["importance"]},
                    "urgency": {"type": "string", "enum": _ENUM["urgency"]},
                    "taskLabel": {"type": "string"},
                    "owner": {"type": ["string", "null"]},
                    "due": {"type": ["string", "null"], "description": "YYYY-MM-DD"},
                    "status": {"type": "string", "enum": _ENUM["status"]},
                    "evidence": {"type": "array", "items": {"type": "string"}},
                },
            },
        }
    },
}


class LLMExtractor:
    """`last_source` says who answered; `cap_reached` is set when the daily cap stopped the last call."""

    name = "llm"
    feature = "insights"

    def __init__(self, llm: LLM, *, fallback: Extractor) -> None:
        self._llm = llm
        self._fallback = fallback
        self.last_source = "none"
        self.last_reason: str | None = None
        self.cap_reached: str | None = None

    def extract(self, messages: Sequence[ChatMessage]) -> list[InsightDraft]:
        self.cap_reached = None
        if not messages:
            return []
        transcript = "\n".join(
            f"[{m.message_id}] {iso(m.timestamp)} {m.person}: {m.content}" for m in messages
        )
        try:
            reply = self._llm.chat_json(
                self.feature, instructions=SYSTEM_PROMPT, data=transcript, schema=INSIGHT_SCHEMA,
                schema_name="insights",
            )  # fmt: skip
        except LLMCapReached as exc:
            self.cap_reached = exc.message
            return self._fall_back(f"daily LLM cap reached: {exc.message}", messages)
        except LLMError as exc:  # unreachable, 4xx/5xx, timeout (already mapped by the seam)
            return self._fall_back(f"LLM call failed: {exc.message}", messages)
        try:
            payload = json.loads(reply.content or "")
            drafts = _to_drafts(payload, messages)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            return self._fall_back(f"LLM answer unusable: {exc}", messages)
        self.last_source, self.last_reason = "llm", None
        return drafts

    def _fall_back(self, reason: str, messages: Sequence[ChatMessage]) -> list[InsightDraft]:
        log.warning("insight extraction falls back to rules: %s", reason)
        self.last_source, self.last_reason = "rules", reason
        return self._fallback.extract(messages)


def _to_drafts(payload: dict[str, Any], messages: Sequence[ChatMessage]) -> list[InsightDraft]:
    by_id = {m.message_id: m for m in messages}
    drafts: list[InsightDraft] = []
    per_anchor: dict[tuple[str, str], int] = {}
    for raw in payload["insights"]:
        evidence = tuple(e for e in raw["evidence"] if e in by_id)
        if not evidence:
            continue  # an insight the model cannot tie to a message is not evidence-backed: drop it
        kind = InsightKind(raw["kind"])
        anchor = by_id[evidence[0]]
        n = per_anchor.get((kind.value, anchor.message_id), 0)
        per_anchor[(kind.value, anchor.message_id)] = n + 1
        due = _due(raw.get("due"))
        label = str(raw.get("taskLabel") or "") or labels.task_label_for(kind, raw["description"])
        drafts.append(
            InsightDraft(
                kind=kind,
                title=labels.shorten(str(raw["title"]), 120),
                description=str(raw["description"]),
                importance=Importance(raw["importance"]),
                urgency=Urgency(raw["urgency"]),
                task_label=label,
                dedupe_key=f"{anchor.platform}:{anchor.channel}:{kind.value}:{anchor.message_id}:{n}",
                evidence=evidence,
                occurred_at=anchor.timestamp,
                platform=anchor.platform,
                channel=anchor.channel,
                author=anchor.person,
                owner=raw.get("owner") or None,
                due_at=due,
                status=InsightStatus(raw.get("status") or "open"),
                details=_details(raw.get("owner"), due),
                timeline=tuple(
                    TimelineEvent(by_id[e].timestamp, f"said by {by_id[e].person}", e) for e in evidence
                ),
            )
        )
    return drafts


def _due(value: Any) -> int | None:
    if not value:
        return None
    day = datetime.fromisoformat(str(value)[:10]).date()
    return int(datetime.combine(day, time(23, 59), UTC).timestamp() * 1000)


def _details(owner: Any, due: int | None) -> tuple[str, ...]:
    out = [f"owner: {owner}"] if owner else []
    return (*out, f"due: {iso(due)}") if due else tuple(out)
