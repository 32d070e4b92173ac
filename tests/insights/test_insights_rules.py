"""The rule extractor on small conversations: owners, dates, acceptance, answers, resolution."""

from __future__ import annotations

from datetime import UTC, date, datetime

from insights.extractors.rules import RuleExtractor
from insights.model import ChatMessage, Importance, InsightKind, InsightStatus, Urgency

BASE = datetime(2026, 3, 11, 9, 0, tzinfo=UTC)  # a Wednesday


def conv(*lines: tuple[int, str, str]) -> list[ChatMessage]:
    """(minutes after 09:00, person, text) → messages m1, m2, …"""
    return [
        ChatMessage(f"m{i}", person, int(BASE.timestamp() * 1000) + minutes * 60_000, text, "slack", "eng")
        for i, (minutes, person, text) in enumerate(lines, 1)
    ]


def of(drafts, kind):  # type: ignore[no-untyped-def]
    return [d for d in drafts if d.kind is kind]


def day(ms: int | None) -> date | None:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date() if ms else None


def test_mention_request_has_owner_and_due() -> None:
    drafts = RuleExtractor().extract(conv((0, "dave", "@anna can you send the deck by Friday?")))
    (item,) = of(drafts, InsightKind.ACTION_ITEM)
    assert item.owner == "anna" and day(item.due_at) == date(2026, 3, 13)
    assert item.title == "anna: send the deck by Friday"
    assert item.evidence == ("m1",) and item.author == "dave"
    assert not of(drafts, InsightKind.QUESTION)  # a request is not also an open question


def test_acceptance_merges_and_fills_due() -> None:
    drafts = RuleExtractor().extract(
        conv(
            (0, "joe", "can someone call the landlord tomorrow?"), (5, "emma", "I'll call him in the morning")
        )
    )
    (item,) = of(drafts, InsightKind.ACTION_ITEM)
    assert item.owner == "emma" and item.evidence == ("m1", "m2")
    assert [t.event for t in item.timeline] == ["requested by joe", "accepted by emma"]


def test_completion_resolves_the_action_item() -> None:
    drafts = RuleExtractor().extract(
        conv(
            (0, "raj", "@leo could you update the design tokens package?"),
            (90, "leo", "design tokens updated"),
        )
    )
    (item,) = of(drafts, InsightKind.ACTION_ITEM)
    assert item.status is InsightStatus.RESOLVED


def test_sarcasm_is_not_a_commitment() -> None:
    drafts = RuleExtractor().extract(conv((0, "kira", "lol yeah sure, I'll rewrite it this weekend /s")))
    assert drafts == []


def test_decision_but_not_a_proposal() -> None:
    drafts = RuleExtractor().extract(
        conv((0, "a", "should we go with postgres?"), (5, "b", "ok we decided to go with postgres"))
    )
    assert [d.evidence[0] for d in of(drafts, InsightKind.DECISION)] == ["m2"]


def test_question_answered_versus_awaiting() -> None:
    drafts = RuleExtractor().extract(
        conv(
            (0, "luna", "does the 2.3.1 build work on linux?"),
            (7, "zed", "it does, tested on arch yesterday"),
            (30, "priya", "@dave do we still need the old export endpoint?"),
            (40, "tom", "no idea tbh"),
        )
    )
    questions = {d.evidence[0]: d for d in of(drafts, InsightKind.QUESTION)}
    assert questions["m1"].status is InsightStatus.RESOLVED
    assert questions["m3"].status is InsightStatus.OPEN  # only dave can answer what was asked of dave
    assert questions["m3"].addressed_to == ("dave",)


def test_known_names_address_before_they_speak() -> None:
    drafts = RuleExtractor(known_names=["alex"]).extract(
        conv((0, "maria", "alex, are you joining the offsite planning call on Thursday?"))
    )
    (q,) = of(drafts, InsightKind.QUESTION)
    assert q.addressed_to == ("alex",)
    (meeting,) = of(drafts, InsightKind.MEETING)
    assert day(meeting.due_at) == date(2026, 3, 12)


def test_incident_levels_and_recovery() -> None:
    drafts = RuleExtractor().extract(
        conv(
            (0, "ravi", "checkout is down for EU customers"),
            (15, "mei", "checkout recovered, errors back to baseline"),
        )
    )
    (b,) = of(drafts, InsightKind.BLOCKER)
    assert b.importance is Importance.CRITICAL and b.urgency is Urgency.IMMEDIATE
    assert b.task_label == "incident" and b.status is InsightStatus.RESOLVED


def test_deadline_and_bug_label() -> None:
    drafts = RuleExtractor().extract(
        conv(
            (0, "ferris", "heads up: feature freeze is on March 20"),
            (5, "lucas", "the dashboard export is broken, getting a 500"),
        )
    )
    (deadline,) = of(drafts, InsightKind.DEADLINE)
    assert day(deadline.due_at) == date(2026, 3, 20) and deadline.task_label == "release"
    (bug,) = of(drafts, InsightKind.BLOCKER)
    assert bug.task_label == "bug_report"


def test_dedupe_keys_are_stable_when_more_messages_arrive() -> None:
    first = conv((0, "joe", "can someone call the landlord tomorrow?"))
    both = conv((0, "joe", "can someone call the landlord tomorrow?"), (5, "emma", "on it"))
    k1 = {d.dedupe_key for d in RuleExtractor().extract(first)}
    k2 = {d.dedupe_key for d in RuleExtractor().extract(both)}
    assert k1 == k2


def test_slack_markup_is_understood() -> None:
    drafts = RuleExtractor().extract(
        conv((0, "dave", "<@U123|anna> can you review <https://x.io/pr/1|the PR> today?"))
    )
    (item,) = of(drafts, InsightKind.ACTION_ITEM)
    assert item.owner == "anna" and item.task_label == "code_review"
