"""LLM extractor: an OpenAI-compatible model fills a JSON schema of insights; the rule extractor
takes over whenever the model is unavailable, over the daily cap, or answers nonsense."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time
from typing import Any, Protocol

import httpx

from app.core.clock import Clock, iso
from insights.extractors import Extractor, labels
from insights.extractors.redaction import redact
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


class UsageLedger(Protocol):
    """Where LLM token use is recorded; the daily cap is checked against it."""

    def tokens_used_since(self, since_ms: int) -> int: ...

    def record(
        self, *, at: int, model: str, prompt_tokens: int, completion_tokens: int, cost: float
    ) -> None: ...


class MemoryLedger:
    """A ledger that lives as long as the process; the service passes a SQLite-backed one."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, str, int, int, float]] = []

    def tokens_used_since(self, since_ms: int) -> int:
        return sum(p + c for at, _, p, c, _ in self.rows if at >= since_ms)

    def record(self, *, at: int, model: str, prompt_tokens: int, completion_tokens: int, cost: float) -> None:
        self.rows.append((at, model, prompt_tokens, completion_tokens, cost))


@dataclass(frozen=True, slots=True)
class LLMPricing:
    """US dollars per million tokens, for the cost column of the usage ledger."""

    prompt_per_million: float = 0.15
    completion_per_million: float = 0.60

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.prompt_per_million + completion_tokens * self.completion_per_million
        ) / 1e6


class LLMExtractor:
    """`client` is an `openai.OpenAI` (any compatible base URL); `last_source` says who answered."""

    name = "llm"

    def __init__(
        self, client: Any, *, model: str, fallback: Extractor, ledger: UsageLedger, clock: Clock,
        daily_token_cap: int, pricing: LLMPricing | None = None,
    ) -> None:  # fmt: skip
        self._client = client
        self._model = model
        self._fallback = fallback
        self._ledger = ledger
        self._clock = clock
        self._cap = daily_token_cap
        self._pricing = pricing or LLMPricing()
        self.last_source = "none"
        self.last_reason: str | None = None

    def extract(self, messages: Sequence[ChatMessage]) -> list[InsightDraft]:
        if not messages:
            return []
        transcript = "\n".join(
            f"[{m.message_id}] {iso(m.timestamp)} {m.person}: {redact(m.content)}" for m in messages
        )
        now = self._clock.now_ms()
        day_start = int(
            datetime.combine(datetime.fromtimestamp(now / 1000, UTC).date(), time(), UTC).timestamp()
        )
        estimate = len(SYSTEM_PROMPT + transcript) // 4 + 500
        if self._ledger.tokens_used_since(day_start * 1000) + estimate > self._cap:
            return self._fall_back("daily token cap reached", messages)
        # Imported on use: the SDK costs ~1 s of start-up, and the client here already loaded it.
        import openai

        try:
            response = self._client.chat.completions.create(
                model=self._model,
                temperature=0,
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": transcript},
                ],
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "insights", "strict": True, "schema": INSIGHT_SCHEMA},
                },
            )
        except (openai.OpenAIError, httpx.HTTPError, OSError) as exc:  # unreachable, 4xx/5xx, timeout
            return self._fall_back(f"LLM call failed: {type(exc).__name__}: {exc}", messages)
        usage = getattr(response, "usage", None)
        prompt, completion = (usage.prompt_tokens, usage.completion_tokens) if usage else (estimate, 0)
        self._ledger.record(
            at=now, model=self._model, prompt_tokens=prompt, completion_tokens=completion,
            cost=self._pricing.cost(prompt, completion),
        )  # fmt: skip
        try:
            payload = json.loads(response.choices[0].message.content or "")
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
