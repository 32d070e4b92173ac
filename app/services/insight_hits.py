"""An insight drawn from a single message and that message, found by one search: told apart.

Rule-based insights take their title from the message they rest on, so with `include=["insights"]`
the same sentence comes back twice, once as the message and once as the insight. Every shell gets
the message hit annotated with its insight (`insight`: id, kind, lifecycle, title); the desktop
list then shows one row (the message, marked with the insight's kind), while REST and MCP keep
both hits, since agents may ask for the structured insight by kind. Insights resting on several
messages are a summary of their own and are never folded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from app.core.domain import SearchHit


def annotate_insight_twins(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """`hits` with each message hit naming the single-message insight found beside it."""
    hits = list(hits)
    by_message = _message_positions(hits)
    for hit in hits:
        target = _twin_of(hit, by_message)
        if target is not None and "insight" not in hits[target].extra:
            note = {
                "insight_id": hit.extra.get("insight_id"),
                "insight_kind": hit.extra.get("insight_kind"),
                "lifecycle": hit.extra.get("lifecycle"),
                "title": hit.content,
            }
            hits[target] = dataclasses.replace(hits[target], extra={**hits[target].extra, "insight": note})
    return hits


def drop_insight_twins(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """`hits` without the insights whose one message is listed too (that row names the insight)."""
    hits = list(hits)
    by_message = _message_positions(hits)
    return [hit for hit in hits if _twin_of(hit, by_message) is None]


def _message_positions(hits: list[SearchHit]) -> dict[tuple[str | None, str], int]:
    positions: dict[tuple[str | None, str], int] = {}
    for pos, hit in enumerate(hits):
        if hit.kind == "message" and hit.message_id is not None:
            positions.setdefault((hit.platform, hit.message_id), pos)
    return positions


def _twin_of(hit: SearchHit, by_message: dict[tuple[str | None, str], int]) -> int | None:
    evidence = hit.extra.get("evidence") if hit.kind == "insight" else None
    if not evidence or len(evidence) != 1:
        return None
    return by_message.get((hit.platform, str(evidence[0])))
