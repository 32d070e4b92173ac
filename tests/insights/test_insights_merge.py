"""One insight per real-world item: restatements merge across channels and platforms, changes update
the item with history, closures and owners follow the conversation and the identity directory.
Real SQLite + LanceDB in tmp_path, the real pipeline, the deterministic test embedder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from app.bootstrap import Services, build_services
from app.core.clock import DAY_MS, HOUR_MS, FixedClock, datetime_to_ms
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import InsightSettings, Settings
from app.services.insights_service import InsightsService

T0 = datetime_to_ms(datetime(2026, 1, 5, 9, 0, tzinfo=UTC))


@pytest.fixture
def svc(settings: Settings) -> Iterator[Services]:
    settings = settings.model_copy(update={"insights": InsightSettings(identities=["alex"])})
    services = build_services(settings, clock=FixedClock(T0 + 30 * DAY_MS), embedder=HashingEmbedder())
    yield services
    services.close()


def _say(svc: Services, *messages: tuple[str, str, str, str, int, str]) -> None:
    svc.memory.ingest(
        [
            RawMessage(platform=pl, message_id=mid, channel=ch, person=who, timestamp=T0 + at, content=text)
            for mid, pl, ch, who, at, text in messages
        ]
    )


def _all(insights: InsightsService) -> list:  # type: ignore[type-arg]
    return insights.list_insights(limit=500, lifecycle_state="all")


def test_restated_decision_is_one_insight_with_all_evidence(svc: Services) -> None:
    _say(
        svc,
        ("d1", "slack", "product", "maria", 0,
         "we decided to drop the offline mode for v2, not enough people use it"),
        ("d2", "email", "inbox", "Maria Lopez", 2 * HOUR_MS,
         "Quick summary: we're dropping offline mode from v2."),
        ("d3", "discord", "beta", "maria_l", DAY_MS,
         "heads up: we decided to drop offline mode in v2, sorry folks"),
    )  # fmt: skip
    first = svc.insights.generate()
    (decision,) = [r for r in _all(svc.insights) if r.insight.kind.value == "decision"]
    d = decision.insight.draft
    assert d.title == "Drop the offline mode for v2, not enough people use it"  # no "Decision:" prefix
    assert {"d1", "d3"} <= set(d.evidence)
    assert any(e.event.startswith("restated by maria_l in discord/beta") for e in d.timeline)
    # Running again over everything changes nothing: merges are remembered per draft.
    again = svc.insights.generate(full=True)
    assert again.created == 0 and len(_all(svc.insights)) == first.created
    assert svc.insights.get(decision.id, count_view=False).insight.draft.evidence == d.evidence


def test_a_change_updates_the_item_and_keeps_its_history(svc: Services) -> None:
    _say(
        svc,
        ("g1", "email", "grants", "Lena Weiss", 0, "Reminder: the grant application is due January 30."),
        ("g2", "slack", "research", "lena", HOUR_MS, "grant application due Jan 30, don't forget"),
    )
    svc.insights.generate()
    # Days later, in a new run: the date moves.
    _say(
        svc,
        ("g3", "slack", "research", "lena", 3 * DAY_MS, "good news, the grant deadline moved to February 6"),
    )
    svc.insights.generate()
    (deadline,) = [r for r in _all(svc.insights) if r.insight.kind.value == "deadline"]
    d = deadline.insight.draft
    assert set(d.evidence) == {"g1", "g2", "g3"}
    assert datetime.fromtimestamp(d.due_at / 1000, tz=UTC).date().isoformat() == "2026-02-06"
    changed = [e.event for e in d.timeline if e.event.startswith("changed")]
    assert changed and "was due 2026-01-30" in changed[0]


def test_will_do_makes_a_commitment_and_done_closes_it(svc: Services) -> None:
    _say(
        svc,
        ("p1", "slack", "pm", "anna", 0, "Ben to write the PRD for export by Wednesday"),
        ("p2", "slack", "pm", "ben", 2 * 60_000, "will do"),
        ("p3", "slack", "pm", "anna", 3 * 60_000, "thanks!"),
    )
    svc.insights.generate()
    (task,) = _all(svc.insights)
    d = task.insight.draft
    assert (d.kind.value, d.owner, d.title) == (
        "action_item",
        "ben",
        "ben: write the PRD for export by Wednesday",
    )
    assert any(e.event == "accepted by ben" for e in d.timeline) and task.insight.lifecycle == "open"
    assert svc.insights.brief(identities=["ben"]).my_actions[0].id == task.id
    _say(svc, ("p4", "slack", "pm", "ben", 2 * DAY_MS, "PRD for export is done, link in the doc"))
    svc.insights.generate()
    closed = svc.insights.get(task.id, count_view=False)
    assert closed.insight.lifecycle == "done" and "p4" in closed.insight.draft.evidence
    assert not svc.insights.list_insights() and not svc.insights.brief(identities=["ben"]).my_actions


def test_acknowledgements_and_small_talk_make_nothing(svc: Services) -> None:
    _say(
        svc,
        ("a1", "telegram", "crew", "pete", 0, "morning all"),
        ("a2", "telegram", "crew", "ola", 60_000, "👍"),
        ("a3", "telegram", "crew", "alex", 2 * 60_000, "will do"),
        ("a4", "telegram", "crew", "ola", 3 * 60_000, "lol ok"),
    )
    svc.insights.generate()
    assert _all(svc.insights) == []


def test_closure_in_another_channel_closes_the_incident(svc: Services) -> None:
    _say(
        svc,
        ("v1", "slack", "ops", "lee", 0, "the VPN is down for everyone in Berlin"),
        ("v2", "slack", "general", "lee", 90 * 60_000, "VPN is back, all clear"),
    )
    svc.insights.generate()
    (blocker,) = _all(svc.insights)
    assert blocker.insight.lifecycle == "done" and blocker.insight.draft.evidence == ("v1", "v2")
    assert any(e.event.startswith("recovered:") for e in blocker.insight.draft.timeline)


def test_owner_is_one_person_across_platforms(svc: Services) -> None:
    assert svc.connectors is not None
    svc.connectors.identities.merge([("slack", "ben"), ("email", "Ben Ortiz")], display_name="Ben Ortiz")
    _say(
        svc,
        ("q1", "email", "inbox", "Ben Ortiz", 0, "I'll review the security questionnaire by Thursday."),
        ("q2", "slack", "pm", "anna", HOUR_MS, "@ben can you review the security questionnaire by Thursday?"),
        ("q3", "slack", "pm", "ben", HOUR_MS + 60_000, "yes"),
    )
    svc.insights.generate()
    (task,) = _all(svc.insights)
    d = task.insight.draft
    assert d.owner == "Ben Ortiz" and d.title.startswith("Ben Ortiz: ") and set(d.evidence) >= {"q1", "q2"}
    # "me" resolved through the directory: any of Ben's names finds his commitments.
    assert [r.id for r in svc.insights.brief(identities=["ben"]).my_actions] == [task.id]


def test_meaning_merges_when_the_words_differ() -> None:
    """Few shared words: the embedding similarity decides (the pipeline passes the embedder's)."""
    from insights import merge
    from insights.model import Importance, InsightDraft, InsightKind, Urgency

    def draft(key: str, title: str, at: int) -> InsightDraft:
        return InsightDraft(
            kind=InsightKind.DECISION, title=title, description=title, importance=Importance.MEDIUM,
            urgency=Urgency.LOW, task_label="decision", dedupe_key=key, evidence=(key,), occurred_at=at,
            platform="slack", channel="c", author="maria",
        )  # fmt: skip

    stored = merge.candidate("i1", draft("k1", "We are dropping offline mode from v2", T0))
    new = draft("k2", "Offline support is cut from the second version", T0 + HOUR_MS)
    nobody = lambda a, b: False  # noqa: E731
    assert merge.find_target(new, [stored], nobody) is None  # one shared word: not enough alone
    assert merge.find_target(new, [stored], nobody, lambda a, b: 0.78) is stored
    assert merge.find_target(new, [stored], nobody, lambda a, b: 0.55) is None
    unrelated = draft("k3", "Hire two designers in March", T0 + HOUR_MS)
    assert merge.find_target(unrelated, [stored], nobody, lambda a, b: 0.99) is None  # no word in common
