"""Insights end to end on real SQLite + LanceDB: generate from imported chats, incremental runs,
dedup ids, evidence, search, views/favorites/decay in the ranking, trend and the open-loops brief."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from insights_eval_loader import load_harness

from app.bootstrap import Services, build_services
from app.core.clock import DAY_MS, HOUR_MS, FixedClock
from app.core.domain import RawMessage, SearchFilters
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import ConfigError, InvalidInput, NotFound
from app.core.settings import InsightSettings, Settings
from app.services.insight_hits import drop_insight_twins
from insights.model import insight_id

harness = load_harness()
# Just after the last labelled conversation (2026-03-30), so "fresh" means something.
START = 1_774_915_200_000  # 2026-03-31T00:00:00Z


@pytest.fixture
def svc(settings: Settings) -> Iterator[Services]:
    settings = settings.model_copy(update={"insights": InsightSettings(identities=["alex"])})
    services = build_services(settings, clock=FixedClock(START), embedder=HashingEmbedder())
    yield services
    services.close()


def _ingest(services: Services, convs: list) -> None:  # type: ignore[type-arg]
    raw = [
        RawMessage(platform=m.platform, message_id=m.message_id, channel=m.channel, person=m.person,
                   timestamp=m.timestamp, content=m.content)
        for c in convs for m in c.messages
    ]  # fmt: skip
    result = services.memory.ingest(raw)
    assert not result.errors


def test_generate_is_incremental_and_deduplicated(svc: Services) -> None:
    convs = harness.load()
    _ingest(svc, convs)
    first = svc.insights.generate()
    assert first.groups_processed == len(convs) and first.created > 40
    assert svc.insights.generate().groups_processed == 0  # nothing new, nothing re-read

    items = svc.insights.list_insights(limit=500, lifecycle_state="all")
    for r in items:
        assert r.id == insight_id(r.insight.bot_id, r.insight.draft.dedupe_key)
        assert r.insight.draft.evidence  # every insight shows where it came from
    question = next(
        r for r in items if r.insight.draft.evidence[0] == "c14-06" and r.insight.kind.value == "question"
    )
    assert question.insight.draft.status.value == "open"
    # A question answered in the same import never becomes an insight ("does 2.3.1 work on linux?").
    assert not [
        r for r in items if r.insight.kind.value == "question" and r.insight.draft.evidence[0] == "c02-11"
    ]

    # maria's question gets an answer: only that channel is analysed again; the same insight is updated.
    answer = RawMessage(
        platform="slack", message_id="c14-07", channel="D-maria", person="alex",
        timestamp=START - HOUR_MS, content="the Contoso account moved to Priya's team",
    )  # fmt: skip
    svc.memory.ingest([answer])
    again = svc.insights.generate()
    assert again.groups_processed == 1 and again.created == 0 and again.updated >= 1
    updated = svc.insights.get(question.id, count_view=False)
    assert updated.insight.draft.status.value == "resolved"
    assert "c14-07" in updated.insight.draft.evidence
    assert svc.insights.count() == len(items)


def test_search_finds_insights_by_meaning_and_words(svc: Services) -> None:
    _ingest(svc, harness.load())
    svc.insights.generate()
    hits = svc.insights.search("tenacity retry library decision", limit=3)
    assert hits and hits[0].insight.draft.evidence[0] == "c01-09"
    assert svc.insights.index.count() == svc.insights.count()


def test_views_favorites_and_decay_move_the_ranking_exactly(svc: Services) -> None:
    _ingest(svc, harness.load())
    svc.insights.generate()
    clock = svc.clock
    assert isinstance(clock, FixedClock)
    items = svc.insights.list_insights(limit=500)
    low = items[-1]
    before = low.score
    fav = svc.insights.favorite(low.id)
    # favoriteScore 1 → +0.10 value; ×1.5 boost; one access event feeds the frequency score.
    expected_value = before / low.multiplier + 0.10 + 0.45 * fav.value.frequency
    assert fav.value.total == pytest.approx(expected_value)
    assert low.multiplier == 1.0 and fav.multiplier == pytest.approx(1.5)
    assert fav.insight.weights.access_count_7d == 1 and fav.state == "active"
    assert fav.score == pytest.approx(fav.value.total * 1.5) and fav.score > before

    clock.advance(7 * DAY_MS)  # boost over, and a week without activity starts decay (×0.95)
    later = svc.insights.get(fav.id, count_view=False)
    assert later.multiplier == pytest.approx(0.95)
    viewed = svc.insights.get(fav.id)  # > 1 day inactive: view boost ×1.1, inactivity reset
    assert viewed.multiplier == pytest.approx(1.1)
    trend = svc.insights.trend(fav.id)
    assert trend["accessCount7d"] == 1 and trend["previous7d"] == 1 and trend["trend"] == "stable"
    assert sum(trend["daily"]) == 2

    clock.advance(31 * DAY_MS)
    dormant = svc.insights.get(fav.id, count_view=False)
    assert dormant.state == "dormant" and dormant.multiplier == pytest.approx(0.7)
    assert svc.insights.list_insights(state="dormant", limit=500)


def test_brief_lists_my_open_loops(svc: Services) -> None:
    _ingest(svc, harness.load())
    svc.insights.generate()
    brief = svc.insights.brief()
    mine = [r.insight.draft.evidence[0] for r in brief.my_actions]
    waiting = [r.insight.draft.evidence[0] for r in brief.waiting_on]
    asked = [r.insight.draft.evidence[0] for r in brief.questions_for_me]
    assert mine == ["c14-01"]  # approve the vendor invoice
    assert "c14-03" in waiting  # the NDA alex asked maria for
    assert "c14-05" in asked
    values = [r.value.total for r in brief.waiting_on]
    assert values == sorted(values, reverse=True)
    d = brief.to_dict()
    assert set(d) == {"identities", "myActions", "waitingOn", "questionsForMe"}


def test_bad_input_is_explained(svc: Services, settings: Settings) -> None:
    with pytest.raises(InvalidInput):
        svc.insights.list_insights(sort="loudest")
    with pytest.raises(InvalidInput):
        svc.insights.list_insights(importance="huge")
    with pytest.raises(NotFound):
        svc.insights.get("nope")
    plain = build_services(settings, clock=FixedClock(START), embedder=HashingEmbedder())
    try:
        with pytest.raises(ConfigError):
            plain.insights.brief()
    finally:
        plain.close()


def test_unified_search_ranks_insights_with_messages(svc: Services) -> None:
    """`include=["insights"]`: insights merge with messages on the one relevance, behind the floor."""
    _ingest(svc, harness.load())
    svc.insights.generate()
    query = "tenacity retry library decision"
    plain = svc.memory.search(query, limit=10)
    assert all(h.kind == "message" for h in plain)
    mixed = svc.memory.search(query, limit=10, include=("insights",))
    insight = next(h for h in mixed if h.kind == "insight")
    assert insight.id.startswith("insight:") and insight.extra["evidence"][0] == "c01-09"
    assert insight.extra["insight_id"] == insight.id.removeprefix("insight:")
    assert insight.relevance is not None and insight.relevance >= svc.memory.relevance_floor
    # Its one source message is found too: that hit names the insight (the desktop list shows one row).
    source = next(h for h in mixed if h.kind == "message" and h.message_id == "c01-09")
    assert source.extra["insight"]["insight_id"] == insight.extra["insight_id"]
    assert source.extra["insight"]["insight_kind"] == insight.extra["insight_kind"]
    assert source.to_dict()["insight"]["title"] == insight.content
    assert drop_insight_twins(mixed) == [h for h in mixed if h is not insight]
    # One ranking: sorted by score whatever the kind.
    assert [h.score for h in mixed] == sorted((h.score for h in mixed), reverse=True)
    # Nonsense finds no insight either.
    assert svc.memory.search_outcome("zzqxv", include=("insights",)).hits == []


def test_unified_search_drops_dismissed_insights_and_applies_filters(svc: Services) -> None:
    _ingest(svc, harness.load())
    svc.insights.generate()
    query = "tenacity retry library decision"
    insight = next(h for h in svc.memory.search(query, include=("insights",)) if h.kind == "insight")
    insight_id = insight.extra["insight_id"]
    others = SearchFilters(platforms=("nowhere",))
    assert not [h for h in svc.memory.search(query, others, include=("insights",)) if h.kind == "insight"]
    svc.insights.set_lifecycle(insight_id, "dismissed")
    after = svc.memory.search(query, include=("insights",))
    assert insight_id not in [h.extra.get("insight_id") for h in after]
    with pytest.raises(InvalidInput, match="unknown search source"):
        svc.memory.search(query, include=("insight",))
