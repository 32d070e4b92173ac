"""LLM summaries through the guarded LLM seam; every key point cites its source record ids.

Any failure (network, HTTP error, timeout, malformed JSON, missing or invented citations) falls
back to the rule-based summary for that group, with the reason kept in `SummaryDraft.note`. When
the daily cap is reached, no further group is sent in this run and `cap_reached` says why, so the
run report announces it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.core.clock import iso
from app.core.domain import MessageRecord
from app.core.errors import LLMCapReached
from app.core.llm.base import LLM
from forgetting import constants as c
from forgetting import text as tx
from forgetting.summarizer import (
    KeyPoint,
    RuleBasedSummarizer,
    SummaryDraft,
    describe_group,
    extract_keywords,
    quality,
)

MAX_MESSAGE_CHARS = 600
MAX_PROMPT_CHARS = 24_000
_CITATION = re.compile(r"\[#?(\d+)(?:\s*,\s*#?(\d+))*\]")

SYSTEM_PROMPT = (
    "You compress a group of chat messages into a memory summary. Each message is given as "
    "`[id] time person: text`. Reply with one JSON object only: "
    '{"summary": "<one paragraph>", "keyPoints": [{"text": "<highlight>", "sourceRecordIds": [<id>, ...]}], '
    '"keywords": ["<keyword>", ...]}. Rules: at most {max_points} key points, ordered by time; every key '
    "point cites the ids of the messages it comes from, using only ids that appear in the input; "
    "keywords are short topical phrases; write in the language of the messages; never invent facts."
)


class LLMSummaryRejected(ValueError):
    """The model's answer was unusable; the message says why (kept as the fallback note)."""


def build_prompt(records: tuple[MessageRecord, ...]) -> str:
    lines: list[str] = []
    total = 0
    for record in sorted(records, key=lambda r: (r.timestamp, r.id)):
        text = tx.clip(record.content or "", MAX_MESSAGE_CHARS)
        line = f"[{record.id}] {iso(record.timestamp)} {record.person or record.bot_id or '?'}: {text}"
        total += len(line) + 1
        if total > MAX_PROMPT_CHARS:
            lines.append(f"... ({len(records) - len(lines)} more messages omitted)")
            break
        lines.append(line)
    return "\n".join(lines)


def _ids(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise LLMSummaryRejected("a key point has no sourceRecordIds")
    out = []
    for item in value:
        try:
            out.append(int(str(item).lstrip("#")))
        except ValueError as exc:
            raise LLMSummaryRejected(f"citation {item!r} is not a record id") from exc
    return tuple(sorted(set(out)))


def parse_answer(raw: str, records: tuple[MessageRecord, ...], max_points: int) -> SummaryDraft:
    """Validate the model's JSON; raises LLMSummaryRejected with the reason when unusable."""
    known = {r.id for r in records}
    try:
        data = json.loads(raw)
    except (TypeError, json.JSONDecodeError) as exc:
        raise LLMSummaryRejected(f"answer is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise LLMSummaryRejected("answer is not a JSON object")
    summary = data.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        raise LLMSummaryRejected("answer has no summary text")
    points_raw = data.get("keyPoints")
    if not isinstance(points_raw, list) or not points_raw:
        raise LLMSummaryRejected("answer has no keyPoints")
    points: list[KeyPoint] = []
    for item in points_raw[:max_points]:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
            raise LLMSummaryRejected("a key point has no text")
        ids = _ids(item.get("sourceRecordIds"))
        unknown = set(ids) - known
        if unknown:
            raise LLMSummaryRejected(f"key point cites ids not in the group: {sorted(unknown)}")
        points.append(KeyPoint(tx.clip(item["text"], c.MAX_KEY_POINT_CHARS), ids))
    # Inline citations in the paragraph must be real too.
    for match in _CITATION.finditer(summary):
        cited = {int(x) for x in re.findall(r"\d+", match.group(0))}
        if cited - known:
            raise LLMSummaryRejected(f"summary cites ids not in the group: {sorted(cited - known)}")
    keywords_raw = data.get("keywords")
    keywords: tuple[str, ...] = ()
    if isinstance(keywords_raw, list):
        seen: list[str] = []
        for k in keywords_raw:
            if isinstance(k, str) and k.strip() and k.strip().lower() not in seen:
                seen.append(k.strip().lower())
        keywords = tuple(seen[: c.MAX_KEYWORDS])
    if not keywords:
        keywords = extract_keywords([r.content or "" for r in records], c.MAX_KEYWORDS)
    key_points = tuple(points)
    text = tx.clip(f"{describe_group(records)} {tx.normalize(summary)}", c.MAX_SUMMARY_TEXT_CHARS)
    return SummaryDraft(key_points, keywords, text, quality(key_points, keywords, records), "llm")


class LLMSummarizer:
    """Summaries written by a chat model behind the `LLM` seam, with the rule-based summarizer as fallback."""

    name = "llm"
    feature = "forgetting"

    def __init__(
        self,
        llm: LLM,
        *,
        fallback: RuleBasedSummarizer | None = None,
        max_key_points: int = c.MAX_KEY_POINTS,
        json_mode: bool = True,
    ) -> None:
        self.llm = llm
        self.fallback = fallback or RuleBasedSummarizer(max_key_points)
        self.max_key_points = max_key_points
        self.json_mode = json_mode
        self.tokens_used = 0
        self.cap_reached: str | None = None

    def summarize(self, records: tuple[MessageRecord, ...]) -> SummaryDraft:
        try:
            if self.cap_reached is not None:
                raise LLMCapReached(self.cap_reached)  # already refused in this run: do not ask again
            raw = self._ask(records)
            return parse_answer(_strip_fences(raw), records, self.max_key_points)
        except Exception as exc:  # any failure at all: the rule-based summary is always there
            if isinstance(exc, LLMCapReached):
                self.cap_reached = exc.message
            draft = self.fallback.summarize(records)
            reason = f"llm summary failed ({type(exc).__name__}: {exc}); used rule-based summary"
            return SummaryDraft(
                draft.key_points,
                draft.keywords,
                draft.summary_text,
                draft.quality_score,
                draft.summarizer,
                tx.clip(reason, 300),
            )

    def _ask(self, records: tuple[MessageRecord, ...]) -> str:
        reply = self.llm.chat_json(
            self.feature,
            instructions=SYSTEM_PROMPT.replace("{max_points}", str(self.max_key_points)),
            data=build_prompt(records),
            json_mode=self.json_mode,
        )
        self.tokens_used += reply.prompt_tokens + reply.completion_tokens
        if not reply.content:
            raise LLMSummaryRejected("the model returned an empty message")
        return reply.content


def _strip_fences(raw: str) -> str:
    # Some local models wrap JSON in ```json fences despite json mode.
    raw = raw.strip()
    if raw.startswith("```"):
        raw = re.sub(r"^```(?:json)?\s*|\s*```$", "", raw)
    return raw
