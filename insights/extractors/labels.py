"""Importance, urgency, task label and titles for an extracted insight, from its text and due date."""

from __future__ import annotations

import re

from app.core.clock import DAY_MS
from insights.model import Importance, InsightKind, Urgency

_CRITICAL = re.compile(
    r"\b(?:outage|is down|are down|went down|sev ?[01]|p0|data loss|security (?:breach|incident)|checkout"
    r"|prod(?:uction)? is down|customers? can'?t|nobody can)\b",
    re.I,
)
_HIGH = re.compile(
    r"\b(?:urgent|asap|important|critical|customers?|clients?|legal|launch|release|sev ?[23]|p1|blocker"
    r"|blocking|deadline|prod|production|renewal|contract|invoice|security)\b",
    re.I,
)
_IMMEDIATE = re.compile(
    r"\b(?:asap|urgent|urgently|right now|immediately|right away|sev ?[01]|p0|outage|is down|are down)\b",
    re.I,
)
_LABELS: list[tuple[str, re.Pattern[str]]] = [
    ("incident", re.compile(r"\b(?:outage|incident|sev ?\d|p0|is down|are down|went down|latency|disk usage"
                            r"|error rate|on-?call|postmortem|post-mortem)\b", re.I)),
    ("bug_report", re.compile(r"\b(?:bug|crash(?:es|ed)?|error|errors|exception|broken|500|fails?|failing"
                              r"|regression|not working|doesn'?t work|stack ?trace|flaky)\b", re.I)),
    ("feature_request", re.compile(r"\b(?:feature request|can we add|would be (?:nice|great|cool)|support for"
                                   r"|add support|asking for|wish(?:list)?|it'?d be nice)\b", re.I)),
    ("code_review", re.compile(r"\b(?:review (?:it|my|the|this) ?(?:pr|pull request|diff|change)?|pr\b|pull "
                               r"request|code review)", re.I)),
    ("release", re.compile(r"\b(?:release|launch|ship|freeze|deploy|goes live|go live|v\d+(?:\.\d+)*)\b",
                           re.I)),
    ("documentation", re.compile(r"\b(?:docs?|wiki|readme|documentation|guide|notes|postmortem)\b", re.I)),
]  # fmt: skip
_KIND_LABEL = {
    InsightKind.MEETING: "meeting",
    InsightKind.DECISION: "decision",
    InsightKind.QUESTION: "question",
    InsightKind.ACTION_ITEM: "follow_up",
}
_TASK_PREFIX = re.compile(
    r"^(?:(?:hey|hi|ok|okay|ugh|oh|so|also|perfect|thanks|great|sure|yes|yep|yup)[,!.]?\s+"
    r"|@[\w.\-]+[,:]?\s+|(?:can|could|would|will) (?:you|u|someone|anyone|somebody|one of you)\s+"
    r"|(?:please|pls|plz|just)\s+|(?:todo|to-do|action item|action|ai)(?: for [\w@.\-]+)?\s*:\s*"
    r"|(?:i'll|i will|i'm going to|i am going to|i'm gonna|let me|i can)\s+)+",
    re.I,
)


def importance_for(kind: InsightKind, text: str, addressed: bool) -> Importance:
    if _CRITICAL.search(text):
        return Importance.CRITICAL
    if _HIGH.search(text) or kind in (InsightKind.BLOCKER, InsightKind.DEADLINE):
        return Importance.HIGH
    if kind is InsightKind.QUESTION and not addressed:
        return Importance.LOW
    return Importance.MEDIUM


def urgency_for(kind: InsightKind, text: str, due_at: int | None, said_at: int) -> Urgency:
    if _IMMEDIATE.search(text):
        return Urgency.IMMEDIATE
    if due_at is not None:
        # Measured from when it was said: "by tomorrow" is urgent, "by March 31" said in March is not.
        lead = due_at - said_at
        if lead <= DAY_MS:
            return Urgency.URGENT
        return Urgency.MEDIUM if lead <= 7 * DAY_MS else Urgency.LOW
    if kind is InsightKind.BLOCKER:
        return Urgency.URGENT
    return Urgency.LOW


def task_label_for(kind: InsightKind, text: str) -> str:
    if kind is InsightKind.MEETING:
        return "meeting"
    for label, pattern in _LABELS:
        if pattern.search(text):
            return label
    return _KIND_LABEL.get(kind, "general")


_REQUEST_CUE = re.compile(
    r"\b(?:(?:can|could|would|will|did|have) (?:you|u|someone|anyone|somebody)|please|pls|plz"
    r"|(?:do|would) you have (?:time|a minute) to)\s+",
    re.I,
)
# Lead-ins a person would not write in a task list: "heads up:", "update:", "Decision:", "ok so".
_LEAD = re.compile(
    r"^(?:(?:(?:ok|okay|so|update|heads up|fyi|(?:quick |gentle )?reminder|psa|note|alert|blocked|decision"
    r"|final call|final decision|open question|change of plans?|good news|bad news|as decided|hi all"
    r"|hey all|all)\s*[:,!.\-—]*\s+)|(?:[\w\-]+ ){0,3}(?:outcome|summary|recap|update):\s+)+",
    re.I,
)
_DECIDED = re.compile(
    r"^(?:we(?:'ve| have)? (?:decided|agreed)(?: to| on| that)?|it'?s decided(?: that)?:?|decided to"
    r"|let'?s go with|we(?:'ll| will)?(?= \w))\s+",
    re.I,
)


def title_for(kind: InsightKind, sentence: str) -> str:
    """ "Decision: we ship the dark mode toggle in March" → "Ship the dark mode toggle in March"."""
    text = " ".join(sentence.split()).rstrip(" .")
    for _ in range(3):
        text = _LEAD.sub("", text)
    if kind is InsightKind.DECISION:
        text = _DECIDED.sub("", text, count=1)
    text = text or sentence.strip()
    return shorten(text[:1].upper() + text[1:], 80)


def task_text(sentence: str) -> str:
    """ "hey @anna, quick one: can you send the deck by Friday?" → "send the deck by Friday"."""
    body = sentence.strip()
    cue = _REQUEST_CUE.search(body)
    if cue and cue.start() <= 60:
        body = body[cue.end() :]  # greetings and fillers before the request are not the task
    body = _TASK_PREFIX.sub("", body).strip().rstrip("?!. ")
    body = re.sub(r",?\s*(?:please|pls|plz)$", "", body, flags=re.I)
    return body or sentence.strip()


def shorten(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
