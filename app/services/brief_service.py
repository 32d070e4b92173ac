"""The wake-up brief: what an assistant should know to start a conversation, in a bounded size, no LLM."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from app.core.clock import DAY_MS, Clock, iso
from app.core.errors import InvalidInput
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow
from insights.brief import open_loops

DEFAULT_MAX_TOKENS = 1500
MIN_MAX_TOKENS = 200
MAX_MAX_TOKENS = 20_000
# The same rough estimate as the MCP budget (app/mcp/budget.py): ~4 characters per token.
CHARS_PER_TOKEN = 4
ACTIVE_WINDOW_DAYS = 7
DEADLINE_HORIZON_DAYS = 14
DECISION_WINDOW_DAYS = 30
SECTION_LIMIT = 8
# The brief looks at the best-ranked insights only (the insights service's page limit).
RANKED_WORKING_SET = 500
# The datetime range that timestamps can be shown in (0001-01-01 … 9999-12-31, in Unix ms).
FIRST_MS = -62_135_596_800_000
LAST_MS = 253_402_300_799_999
TITLE_CHARS = 160

# Sections in the order they are cut when the brief is over budget: the last one goes first.
SECTION_PRIORITY = (
    "myCommitments",
    "questionsForMe",
    "waitingOn",
    "upcomingDeadlines",
    "recentDecisions",
    "changes",
    "activeChannels",
    "activePeople",
)


@dataclass(frozen=True, slots=True)
class Brief:
    """A JSON-ready brief; `omitted` counts items left out to stay within `max_tokens`."""

    body: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.body

    def to_markdown(self) -> str:
        return render_markdown(self.body)


class BriefService:
    """Builds the brief from insights (open loops, decisions, deadlines) and message activity."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        *,
        user_id: str,
        insights: Any,
        identities: Callable[[], Sequence[str]],
        documents_since: Callable[[int], list[dict[str, Any]]] | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.user_id = user_id
        self.insights = insights
        self.identities = identities
        self.documents_since = documents_since

    def brief(self, *, since: int | None = None, max_tokens: int = DEFAULT_MAX_TOKENS) -> Brief:
        now = self.clock.now_ms()
        since = since if since is not None else now - DAY_MS
        if not FIRST_MS <= since <= LAST_MS:
            raise InvalidInput(
                "`since` is outside the years 1–9999", hint="give an ISO date, e.g. 2026-11-01"
            )
        max_tokens = max(MIN_MAX_TOKENS, min(max_tokens, MAX_MAX_TOKENS))
        names = tuple(self.identities())
        ranked = self._ranked()
        sections: dict[str, list[dict[str, Any]]] = {}
        sections.update(self._open_loops(ranked, names))
        sections["upcomingDeadlines"] = self._deadlines(ranked, now)
        sections["recentDecisions"] = self._decisions(ranked, now)
        sections["activePeople"], sections["activeChannels"] = self._activity(now)
        sections["changes"] = self._changes(ranked, since)
        you: dict[str, Any] = {"identities": list(names)}
        if not names:
            you["hint"] = (
                "the user's own names are not known, so open loops cannot be split into theirs "
                "and others'; ask the user, then run `strata insights me NAME…` (or PUT /api/insights/me)"
            )
        body: dict[str, Any] = {
            "generatedAt": iso(now),
            "since": iso(since),
            "you": you,
            **{name: sections.get(name, []) for name in SECTION_PRIORITY},
        }
        return Brief(_fit(body, max_tokens))

    # -- sections -----------------------------------------------------------------------------
    def _ranked(self) -> list[Any]:
        # One ranking pass serves every insight section: ranking is the expensive part.
        return list(self.insights.list_insights(sort="score", limit=RANKED_WORKING_SET))

    def _open_loops(self, ranked: list[Any], names: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
        if not names:
            open_items = [
                r
                for r in ranked
                if r.insight.draft.status.value == "open" and r.insight.kind.value == "action_item"
            ]
            return {
                "myCommitments": [],
                "waitingOn": [_insight_line(r) for r in open_items[:SECTION_LIMIT]],
                "questionsForMe": [],
            }
        loops = open_loops(ranked, names, SECTION_LIMIT)
        return {
            "myCommitments": [_insight_line(r) for r in loops.my_actions],
            "waitingOn": [_insight_line(r) for r in loops.waiting_on],
            "questionsForMe": [_insight_line(r) for r in loops.questions_for_me],
        }

    def _deadlines(self, ranked: list[Any], now: int) -> list[dict[str, Any]]:
        horizon = now + DEADLINE_HORIZON_DAYS * DAY_MS
        items = [
            r
            for r in ranked
            if r.insight.draft.status.value == "open"
            and r.insight.draft.due_at is not None
            and now - DAY_MS <= r.insight.draft.due_at <= horizon
        ]
        items.sort(key=lambda r: r.insight.draft.due_at)
        return [_insight_line(r) for r in items[:SECTION_LIMIT]]

    def _decisions(self, ranked: list[Any], now: int) -> list[dict[str, Any]]:
        start = now - DECISION_WINDOW_DAYS * DAY_MS
        items = [
            r for r in ranked if r.insight.kind.value == "decision" and r.insight.draft.occurred_at >= start
        ]
        items.sort(key=lambda r: -r.insight.draft.occurred_at)
        return [_insight_line(r) for r in items[:SECTION_LIMIT]]

    def _activity(self, now: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        start = now - ACTIVE_WINDOW_DAYS * DAY_MS
        recent = (
            RawMessageRow.user_id == self.user_id,
            RawMessageRow.timestamp >= start,
            RawMessageRow.archived_at.is_(None),
        )
        count = func.count().label("n")
        last = func.max(RawMessageRow.timestamp).label("last")
        with self.db.read() as session:
            people = session.execute(
                select(RawMessageRow.person, RawMessageRow.platform, count, last)
                .where(*recent)
                .group_by(RawMessageRow.person, RawMessageRow.platform)
                .order_by(count.desc())
                .limit(SECTION_LIMIT * 3)
            ).all()
            channels = session.execute(
                select(RawMessageRow.platform, RawMessageRow.channel, count, last)
                .where(*recent)
                .group_by(RawMessageRow.platform, RawMessageRow.channel)
                .order_by(count.desc())
                .limit(SECTION_LIMIT)
            ).all()
        merged: dict[str, dict[str, Any]] = {}
        for person, platform, n, at in people:
            entry = merged.setdefault(
                person, {"person": person, "platforms": [], "messages": 0, "lastAt": at}
            )
            entry["platforms"].append(platform)
            entry["messages"] += n
            entry["lastAt"] = max(entry["lastAt"], at)
        top_people = sorted(merged.values(), key=lambda e: (-e["messages"], e["person"]))[:SECTION_LIMIT]
        for entry in top_people:
            entry["lastAt"] = iso(entry["lastAt"])
        top_channels = [
            {"platform": p, "channel": c, "messages": n, "lastAt": iso(at)} for p, c, n, at in channels
        ]
        return top_people, top_channels

    def _changes(self, ranked: list[Any], since: int) -> list[dict[str, Any]]:
        """New material since `since`: messages per conversation, new insights, new documents."""
        count = func.count().label("n")
        with self.db.read() as session:
            rows = session.execute(
                select(RawMessageRow.platform, RawMessageRow.channel, count, func.max(RawMessageRow.id))
                .where(RawMessageRow.user_id == self.user_id, RawMessageRow.created_at >= since)
                .group_by(RawMessageRow.platform, RawMessageRow.channel)
                .order_by(count.desc())
                .limit(SECTION_LIMIT)
            ).all()
        changes: list[dict[str, Any]] = [
            {"what": "messages", "platform": p, "channel": c, "count": n, "latestId": str(latest)}
            for p, c, n, latest in rows
        ]
        fresh = [
            r for r in self.insights.list_insights(sort="recent", limit=200) if r.insight.created_at >= since
        ]
        for ranked in fresh[:SECTION_LIMIT]:
            changes.append({"what": "insight", **_insight_line(ranked)})
        if self.documents_since is not None:
            changes.extend({"what": "document", **d} for d in self.documents_since(since)[:SECTION_LIMIT])
        return changes


def _insight_line(ranked: Any) -> dict[str, Any]:
    d = ranked.insight.draft
    line: dict[str, Any] = {"id": f"insight:{ranked.id}", "kind": d.kind.value, "title": _clip(d.title)}
    if d.owner:
        line["owner"] = d.owner
    if d.due_at is not None:
        line["due"] = iso(d.due_at)
    line["at"] = iso(d.occurred_at)
    line["where"] = f"{d.platform}/{d.channel}" if d.channel else d.platform
    if d.evidence:
        line["evidence"] = list(d.evidence[:3])
    return line


def _clip(text: str) -> str:
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


def _tokens(body: dict[str, Any]) -> int:
    return len(json.dumps(body, ensure_ascii=False)) // CHARS_PER_TOKEN + 1


def _fit(body: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """Drop items from the least important sections (their tails first) until the brief fits."""
    omitted: dict[str, int] = {}
    # Counted while fitting: the trailer is part of what the client receives.
    body["omitted"] = omitted
    body["approxTokens"] = max_tokens
    for name in reversed(SECTION_PRIORITY):
        while body[name] and _tokens(body) > max_tokens:
            body[name] = body[name][:-1]
            omitted[name] = omitted.get(name, 0) + 1
    body["approxTokens"] = _tokens(body)
    return body


_HEADINGS = {
    "myCommitments": "Your commitments",
    "questionsForMe": "Questions waiting for you",
    "waitingOn": "Waiting on others",
    "upcomingDeadlines": "Upcoming deadlines",
    "recentDecisions": "Recent decisions",
    "changes": "New since {since}",
    "activeChannels": "Most active conversations this week",
    "activePeople": "Most active people this week",
}


def render_markdown(body: dict[str, Any]) -> str:
    """The brief as short markdown, for a terminal or an MCP prompt."""
    names = ", ".join(body["you"]["identities"]) or "(not configured)"
    lines = [f"# Brief ({body['generatedAt']})", f"You: {names}"]
    for name in SECTION_PRIORITY:
        items = body.get(name) or []
        if not items:
            continue
        lines.append("")
        lines.append(f"## {_HEADINGS[name].format(since=body['since'])}")
        lines.extend(f"- {_line_text(item)}" for item in items)
    if body.get("omitted"):
        left = ", ".join(f"{n} {name}" for name, n in body["omitted"].items())
        lines.append("")
        lines.append(f"(left out to fit the size budget: {left})")
    return "\n".join(lines)


def _line_text(item: dict[str, Any]) -> str:
    if "title" in item:
        extra = [f"owner {item['owner']}"] if item.get("owner") else []
        if item.get("due"):
            extra.append(f"due {item['due'][:10]}")
        extra.append(item.get("where") or "")
        return f"{item['title']} ({'; '.join(e for e in extra if e)}) [{item['id']}]"
    if "person" in item:
        return f"{item['person']}: {item['messages']} messages ({', '.join(item['platforms'])})"
    if item.get("what") == "document":
        return f"document {item.get('name', '')} [{item.get('id', '')}]"
    if "count" in item:
        return f"{item['count']} new messages in {item['platform']}/{item['channel']}"
    return f"{item['platform']}/{item['channel']}: {item['messages']} messages, last {item['lastAt']}"
