"""Closures inferred from the conversation, for every extractor: "done", "merged", "fixed", "VPN is
back" after an open task or incident marks it resolved, with the closing message as evidence.

The rule extractor already closes items inside one conversation; this pass also closes an item from
another channel or platform, and gives LLM-extracted items the same lifecycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from app.core.clock import DAY_MS
from insights.extractors import labels
from insights.extractors import patterns as p
from insights.merge import Candidate, stems
from insights.model import ChatMessage, InsightDraft, InsightKind, InsightStatus, TimelineEvent

TASK_WINDOW_MS = 14 * DAY_MS
INCIDENT_WINDOW_MS = 2 * DAY_MS


def closes(text: str) -> str | None:
    """ "done" for a finished task, "recovered" for an incident that is over, else None."""
    if p.is_question(text):
        return None
    if p.RECOVERED.search(text):
        return "recovered"
    return "done" if p.DONE.search(text) else None


def close(
    messages: Sequence[ChatMessage],
    candidates: Iterable[Candidate],
    same: Callable[[str | None, str | None], bool],
) -> dict[str, InsightDraft]:
    """The open insights these messages close, as updated drafts keyed by insight id."""
    kinds = (InsightKind.ACTION_ITEM, InsightKind.BLOCKER)
    open_items = [c for c in candidates if c.draft.status is InsightStatus.OPEN and c.draft.kind in kinds]
    out: dict[str, InsightDraft] = {}
    for msg in messages:
        text = p.normalize(msg.content)
        how = closes(text)
        if how is None:
            continue
        said = stems(p.content_words(text))
        best: tuple[int, Candidate] | None = None
        for c in open_items:
            d = out.get(c.id, c.draft)
            if d.status is not InsightStatus.OPEN or msg.message_id in d.evidence:
                continue
            age = msg.timestamp - d.occurred_at
            if d.kind is InsightKind.ACTION_ITEM:
                # Only the owner (or anyone, for an unowned ask) reports their task done, or someone
                # naming the owner: "Login fix from Maria is merged".
                named = d.owner is not None and d.owner.casefold() in text.casefold()
                by_owner = d.owner is None or same(d.owner, msg.person) or named
                if age <= 0 or age > TASK_WINDOW_MS or not by_owner:
                    continue
            elif age <= 0 or age > INCIDENT_WINDOW_MS or how != "recovered":
                continue
            shared = len(said & c.words)
            if shared and (best is None or shared > best[0]):
                best = (shared, c)
        if best is not None:
            d = out.get(best[1].id, best[1].draft)
            event = f"{how}: {labels.shorten(text, 60)}"
            out[best[1].id] = d.with_changes(
                status=InsightStatus.RESOLVED,
                evidence=(*d.evidence, msg.message_id),
                timeline=(*d.timeline, TimelineEvent(msg.timestamp, event, msg.message_id)),
            )
    return out
