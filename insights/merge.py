"""One insight per real-world item: which stored insight a new draft restates, and the merged result.

A restatement (same decision, task, deadline or incident said again in another message, channel or
platform) joins the insight it repeats, adding its evidence and a timeline event. A draft that
changes an item ("moved to Thursday", "PayPal after all") updates the item and keeps the old
wording in the timeline.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.core.clock import DAY_MS, HOUR_MS, iso
from insights.extractors import patterns as p
from insights.model import InsightDraft, InsightKind, InsightStatus, TimelineEvent

WINDOW_MS = 10 * DAY_MS  # a restatement weeks later is more likely a new item than the same one
MIN_SHARED = 2  # two content words in common: one is coincidence ("deploy", "friday")
SAME_PEOPLE_SIMILARITY = 0.5
OTHER_PEOPLE_SIMILARITY = 0.6
# Meaning, when the words differ ("we're dropping offline mode" / "offline mode is cut"): cosine of the
# two statements' embeddings; only asked when they share at least one word, so it stays cheap.
SEMANTIC_SIMILARITY = 0.75  # MiniLM: restatements 0.78–0.85, different items 0.47–0.57
CHANGE = re.compile(
    r"\b(?:after all|change of plans?|changed (?:our|my) minds?|scratch that|moved to|moves to"
    r"|moving (?:it )?to|pushed (?:back )?to|postponed|slips|slipped|rescheduled|now (?:due|on)"
    r"|instead of (?:march|april|monday|tuesday|wednesday|thursday|friday|\w+day))\b",
    re.I,
)
# Kinds that may name the same item: a reminder "we need it signed by Monday" repeats the request.
_FAMILY = {
    InsightKind.DEADLINE: InsightKind.ACTION_ITEM,
    InsightKind.ACTION_ITEM: InsightKind.ACTION_ITEM,
}
_RESTATED_IN = re.compile(r"^restated by .+ in [^/]+/(.+)$")
INCIDENT_MS = 2 * HOUR_MS  # a second report of trouble in the same channel this soon is the same incident
_SUFFIX = re.compile(r"(?<=\w\w\w)(?:ing|ed|es|s)$")
_DOUBLE = re.compile(r"([b-df-hj-np-tv-z])\1$")
STEM = 5
_PREFIX = re.compile(r"^[\w ]{0,20}:\s*")


@dataclass
class Candidate:
    """A stored (or just stored) insight a later draft may restate."""

    id: str
    draft: InsightDraft
    words: frozenset[str]
    channels: frozenset[str]


def stems(words: Iterable[str]) -> frozenset[str]:
    """Crude stems: "rewrite" and "rewritten", "dropping" and "drop" meet; good enough for overlap."""
    return frozenset(_DOUBLE.sub(r"\1", _SUFFIX.sub("", w))[:STEM] if len(w) > 3 else w for w in words)


def words_of(draft: InsightDraft) -> frozenset[str]:
    """Stemmed content words of what the item says (its title without the owner or kind prefix)."""
    return stems(p.content_words(_PREFIX.sub("", draft.title, count=1)))


def candidate(insight_id: str, draft: InsightDraft) -> Candidate:
    """Channels include those of restatements merged in (read back from the timeline)."""
    channels = {draft.channel, *(m.group(1) for e in draft.timeline if (m := _RESTATED_IN.search(e.event)))}
    return Candidate(insight_id, draft, words_of(draft), frozenset(channels))


def is_change(draft: InsightDraft) -> bool:
    return bool(CHANGE.search(draft.description))


def statement(draft: InsightDraft) -> str:
    """What the item says, without the owner or kind prefix (what the similarity compares)."""
    return _PREFIX.sub("", draft.title, count=1)


def find_target(
    draft: InsightDraft,
    candidates: Iterable[Candidate],
    same_person: Callable[[str | None, str | None], bool],
    similar: Callable[[str, str], float] | None = None,
) -> Candidate | None:
    """The stored insight this draft restates or changes, or None for a new item."""
    mine = words_of(draft)
    changing = is_change(draft)
    best: tuple[float, Candidate] | None = None
    for c in candidates:
        d = c.draft
        if _FAMILY.get(draft.kind, draft.kind) != _FAMILY.get(d.kind, d.kind):
            continue
        if abs(d.occurred_at - draft.occurred_at) > WINDOW_MS or set(d.evidence) >= set(draft.evidence):
            continue
        if (
            draft.kind is InsightKind.ACTION_ITEM
            and d.owner
            and draft.owner
            and not same_person(d.owner, draft.owner)
        ):
            continue  # "Ben to update the page, Carla to draft the mail": two tasks, not one
        shared = len(mine & c.words)
        people = same_person(d.author, draft.author) or same_person(d.owner, draft.owner)
        if changing and draft.channel in c.channels and d.occurred_at <= draft.occurred_at and shared >= 1:
            # "pushed to Tuesday" names the item by one word and changes it; same kind first.
            sim = 1.0 if d.kind is draft.kind else 0.9
        elif (
            draft.kind is InsightKind.BLOCKER and d.kind is InsightKind.BLOCKER
            and draft.channel in c.channels and abs(d.occurred_at - draft.occurred_at) <= INCIDENT_MS
        ):  # fmt: skip
            sim = 0.9  # the alert, then "checkout is down for EU": one incident, worded twice
        else:
            sim = shared / max(1, min(len(mine), len(c.words))) if shared >= MIN_SHARED else 0.0
            if d.due_at and draft.due_at and abs(d.due_at - draft.due_at) < DAY_MS and sim:
                sim += 0.25  # the same date is strong evidence of the same item
            if sim < (SAME_PEOPLE_SIMILARITY if people else OTHER_PEOPLE_SIMILARITY):
                meaning = similar(statement(draft), statement(d)) if similar and shared >= 1 else 0.0
                if meaning < SEMANTIC_SIMILARITY:
                    continue
                sim = meaning
        if best is None or sim > best[0] or (sim == best[0] and d.occurred_at > best[1].draft.occurred_at):
            best = (sim, c)
    return best[1] if best else None


def merge(target: InsightDraft, draft: InsightDraft) -> InsightDraft:
    """`target` with the evidence, timeline and any change `draft` brings; idempotent."""
    evidence = tuple(dict.fromkeys((*target.evidence, *draft.evidence)))
    newer = draft.occurred_at >= target.occurred_at
    events = list(target.timeline)
    seen = {(e.message_id, e.event) for e in events}
    restated = f"restated by {draft.author or 'someone'} in {draft.platform}/{draft.channel}"
    changes: dict[str, object] = {}
    if newer and is_change(draft):
        if draft.kind is target.kind and draft.title != target.title:
            changes.update(title=draft.title, description=draft.description)
        if draft.due_at is not None and draft.due_at != target.due_at:
            changes["due_at"] = draft.due_at
            changes["urgency"] = draft.urgency
        restated = f"changed by {draft.author or 'someone'}: {_PREFIX.sub('', draft.title, count=1)}"
        if target.due_at is not None and "due_at" in changes:
            restated += f" (was due {(iso(target.due_at) or '')[:10]})"
    first = draft.evidence[0] if draft.evidence else None
    for e in (TimelineEvent(draft.occurred_at, restated, first), *draft.timeline[1:]):
        if (e.message_id, e.event) not in seen and not any(
            x.message_id == e.message_id
            and e.message_id is not None
            and x.event.startswith(("restated", "changed"))
            for x in events
        ):
            events.append(e)
            seen.add((e.message_id, e.event))
    if target.owner is None and draft.owner is not None:
        changes["owner"] = draft.owner
    if target.due_at is None and draft.due_at is not None and "due_at" not in changes:
        changes["due_at"] = draft.due_at
    if draft.status is InsightStatus.RESOLVED:
        changes["status"] = InsightStatus.RESOLVED
    events.sort(key=lambda e: e.at)
    return target.with_changes(evidence=evidence, timeline=tuple(events), **changes)


def refresh(stored: InsightDraft, draft: InsightDraft) -> InsightDraft:
    """A re-extracted draft replaces what its own messages said; restatements merged in earlier stay."""
    extra = [e for e in stored.evidence if e not in draft.evidence]
    if not extra:
        return draft
    kept = [e for e in stored.timeline if e.message_id in extra]
    events = sorted(
        {(e.at, e.event, e.message_id): e for e in (*draft.timeline, *kept)}.values(), key=lambda e: e.at
    )
    out = draft.with_changes(evidence=tuple(dict.fromkeys((*draft.evidence, *extra))), timeline=tuple(events))
    if any(e.event.startswith("changed") for e in kept):
        # A later message changed the item: its wording and date win over the original's.
        out = out.with_changes(
            title=stored.title, description=stored.description, due_at=stored.due_at, urgency=stored.urgency
        )
    if stored.status is InsightStatus.RESOLVED:
        out = out.with_changes(status=InsightStatus.RESOLVED)
    if out.owner is None and stored.owner is not None:
        out = out.with_changes(owner=stored.owner)
    return out
