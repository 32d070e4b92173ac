"""Insight use cases: generate, list / filter / sort, get (counts a view), favorite, trend, brief, search."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.core.clock import DAY_MS, Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.embeddings.base import Embedder
from app.core.errors import ConfigError, InvalidInput, NotFound
from app.core.events import Change, EventBus
from app.core.index.lease import WriterLeases
from app.core.index.legs import FusionParams
from app.core.llm.base import LLM
from app.core.search.message_query import MessageQuery
from app.core.settings import Settings
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.vectors import VectorStore
from app.services.insight_people import DirectoryPeople
from connectors.identity import IdentityStore
from insights import lifecycle, scoring, trends
from insights.brief import OpenLoops, open_loops
from insights.extractors import Extractor
from insights.extractors.llm import LLMExtractor
from insights.extractors.rules import RuleExtractor
from insights.index import InsightIndex
from insights.model import Importance, InsightDraft, InsightKind, InsightStatus
from insights.pipeline import GenerationReport, InsightPipeline
from insights.ranking import RankedInsight, rank
from insights.repository import InsightRepository, to_draft, to_insight, to_weights

MAX_IDENTITIES = 20

INSIGHTS_SOURCE = "insights"  # MemoryService.search(include=["insights"])
SORTS = ("score", "value", "recent", "due", "importance", "urgency")
STATES = ("active", "dormant")
LIFECYCLE_FILTERS = tuple(lifecycle.FILTERS)
MAX_LIMIT = 500
_LEVEL = {"critical": 0, "high": 1, "medium": 2, "low": 3, "immediate": 0, "urgent": 1}


class InsightsService:
    def __init__(
        self, db: Database, pipeline: InsightPipeline, index: InsightIndex, clock: Clock, *, user_id: str,
        identities: Sequence[str] = (), frequency_max: int = scoring.DEFAULT_FREQUENCY_MAX,
        events: EventBus | None = None,
    ) -> None:  # fmt: skip
        self.db = db
        self.pipeline = pipeline
        self.index = index
        self.clock = clock
        self.user_id = user_id
        self.identities = tuple(identities)
        self.frequency_max = frequency_max
        self.events = events
        self.repo = InsightRepository()
        self.states = lifecycle.LifecycleStore()
        self.directory = IdentityStore(db, user_id)
        # Owners are resolved through the identity directory on every run (it may have changed).
        self.pipeline.people = lambda: DirectoryPeople(self.directory).canonical

    # -- generation --------------------------------------------------------------------------------
    def generate(
        self, *, full: bool = False, progress: Callable[[int, int], None] | None = None,
        limit: int | None = None,
    ) -> GenerationReport:  # fmt: skip
        """Analyse new messages (all of them, or at most `limit`: the report's `pending` is the rest)."""
        report = self.pipeline.run(full=full, progress=progress, limit=limit)
        self.refresh_ranks()
        if self.events and report.ids:
            self.events.publish(Change("insight", "generated", report.ids, report.to_dict()))
        return report

    def refresh_ranks(self) -> int:
        """Store currentEventRank for every insight (the scheduled job calls this after generating)."""
        ranked = self._ranked()
        with self.db.read() as session:
            stored = {
                i: w.current_event_rank for i, w in self.repo.weight_rows(session, self.user_id).items()
            }
        moved = [r for r in ranked if stored.get(r.id) != r.insight.weights.current_event_rank]
        if moved:
            with self.db.write() as session:
                rows = self.repo.weight_rows(session, self.user_id)
                for r in moved:
                    row = rows.get(r.id) or self.repo.weight_row(session, self.user_id, r.id)
                    row.current_event_rank = r.insight.weights.current_event_rank
        return len(moved)

    # -- reading ---------------------------------------------------------------------------------
    @staticmethod
    def check_filters(
        *, sort: str = "score", importance: str | None = None, state: str | None = None,
        kind: str | None = None, status: str | None = None, lifecycle_state: str | None = None,
    ) -> None:  # fmt: skip
        """InvalidInput naming the allowed values when a list filter is unknown."""
        _check(sort, SORTS, "sort")
        if lifecycle_state is not None:
            _check(lifecycle_state, lifecycle.FILTERS, "lifecycle")
        if importance is not None:
            _check(importance, [v.value for v in Importance], "importance")
        if state is not None:
            _check(state, STATES, "state")
        if kind is not None:
            _check(kind, [k.value for k in InsightKind], "kind")
        if status is not None:
            _check(status, [s.value for s in InsightStatus], "status")

    def list_insights(
        self, *, sort: str = "score", label: str | None = None, importance: str | None = None,
        state: str | None = None, kind: str | None = None, status: str | None = None,
        limit: int = 50, offset: int = 0, lifecycle_state: str | None = None,
    ) -> list[RankedInsight]:  # fmt: skip
        """Open items by default; done, dismissed and snoozed ones only when asked for (or "all").

        `status=resolved` alone looks at every lifecycle (a resolved item is done unless reopened).
        """
        self.check_filters(
            sort=sort, importance=importance, state=state, kind=kind, status=status,
            lifecycle_state=lifecycle_state,
        )  # fmt: skip
        wanted = lifecycle_state or ("all" if status == InsightStatus.RESOLVED.value else lifecycle.OPEN)
        if not 1 <= limit <= MAX_LIMIT or offset < 0:
            raise InvalidInput(
                f"limit must be 1..{MAX_LIMIT} and offset ≥ 0, got limit={limit} offset={offset}"
            )
        items = [
            r for r in self._ranked()
            if (label is None or r.insight.draft.task_label == label)
            and (importance is None or r.insight.draft.importance.value == importance)
            and (state is None or r.state == state)
            and (kind is None or r.insight.kind.value == kind)
            and (status is None or r.insight.draft.status.value == status)
            and (wanted == "all" or r.insight.lifecycle == wanted)
        ]  # fmt: skip
        items.sort(key=_sort_key(sort))
        return items[offset : offset + limit]

    def get(self, insight_id: str, *, count_view: bool = True) -> RankedInsight:
        """One insight; a view is logged (access event) and may start a view boost."""
        if count_view:
            now = self.clock.now_ms()
            with self.db.write() as session:
                row = self._row(session, insight_id)
                weights = self.repo.weight_row(session, self.user_id, insight_id)
                updated = scoring.on_view(to_weights(weights), now, row.created_at)
                weights.last_viewed_at, weights.view_boost_at = updated.last_viewed_at, updated.view_boost_at
                self.repo.record_access(
                    session, user_id=self.user_id, insight=insight_id, kind="view", at=now
                )
            if self.events:  # views change scores and trends: open lists refresh
                self.events.publish(Change("insight", "viewed", (insight_id,)))
        return self._one(insight_id)

    def favorite(self, insight_id: str, value: bool = True) -> RankedInsight:
        now = self.clock.now_ms()
        with self.db.write() as session:
            self._row(session, insight_id)
            weights = self.repo.weight_row(session, self.user_id, insight_id)
            updated = (
                scoring.on_favorite(to_weights(weights), now)
                if value
                else scoring.on_unfavorite(to_weights(weights))
            )
            weights.favorite, weights.favorited_at = updated.favorite, updated.favorited_at
            if value:
                self.repo.record_access(
                    session, user_id=self.user_id, insight=insight_id, kind="favorite", at=now
                )
        if self.events:
            self.events.publish(Change("insight", "favorited" if value else "unfavorited", (insight_id,)))
        return self._one(insight_id)

    def set_lifecycle(self, insight_id: str, state: str, until: int | None = None) -> RankedInsight:
        """Mark an insight done, dismissed, snoozed until `until` (Unix ms), or open again."""
        _check(state, lifecycle.LIFECYCLES, "lifecycle")
        now = self.clock.now_ms()
        if state == lifecycle.SNOOZED and (until is None or until <= now):
            raise InvalidInput(
                "snoozing needs a time in the future to bring the insight back",
                hint="give --until 2026-12-01 or --days 3 (REST/MCP: until as ISO date-time)",
            )
        with self.db.write() as session:
            self._row(session, insight_id)
            self.states.set_state(
                session, user_id=self.user_id, insight=insight_id, state=state,
                until=until if state == lifecycle.SNOOZED else None, at=now,
            )  # fmt: skip
        if self.events:
            self.events.publish(Change("insight", state, (insight_id,), {"lifecycle": state}))
        return self._one(insight_id)

    def me(self) -> tuple[str, ...]:
        """The names the user goes by: the ones they gave (`strata insights me`) and the settings'."""
        with self.db.read() as session:
            stored = self.states.identities(session, self.user_id)
        return tuple(dict.fromkeys([*stored, *self.identities]))

    def set_me(self, names: Sequence[str]) -> tuple[str, ...]:
        """Answer "who are you in these chats?" (first run); replaces the names given before."""
        clean = [n.strip() for n in names if n and n.strip()]
        if not clean or len(clean) > MAX_IDENTITIES or any(len(n) > 256 for n in clean):
            raise InvalidInput(
                f"give 1 to {MAX_IDENTITIES} names (each at most 256 characters), got {len(clean)}",
                hint='e.g. `strata insights me alex "Alex Kim" alex@example.com`',
            )
        with self.db.write() as session:
            self.states.set_identities(session, user_id=self.user_id, names=clean, at=self.clock.now_ms())
        if self.events:
            self.events.publish(Change("insight", "identities", (), {"identities": clean}))
        return self.me()

    def trend(self, insight_id: str, days: int = 30) -> dict[str, Any]:
        if not 1 <= days <= 365:
            raise InvalidInput(f"days must be 1..365, got {days}")
        now = self.clock.now_ms()
        with self.db.read() as session:
            self._row(session, insight_id)
            times = self.repo.access_times(session, self.user_id, now - days * DAY_MS).get(insight_id, [])
            times_30 = self.repo.access_times(session, self.user_id, now - 30 * DAY_MS).get(insight_id, [])
        c = trends.counts(times_30, now)
        return {
            "id": insight_id,
            "trend": trends.trend(c.last_7d, c.previous_7d),
            "accessCount7d": c.last_7d,
            "previous7d": c.previous_7d,
            "accessCount30d": c.last_30d,
            "state": scoring.state(c.last_30d),
            "daily": trends.daily_series(times, now, days),
        }

    def brief(self, limit: int = 20, identities: Sequence[str] | None = None) -> OpenLoops:
        """Open loops for the configured identities (or the names given)."""
        names = tuple(identities) if identities else self.me()
        if not names:
            raise ConfigError(
                "no identities known: Strata does not know your name in these chats yet, so it cannot tell "
                "which tasks are yours",
                hint='tell it once: `strata insights me alex "Alex Kim"` (or the "Who are you?" box in '
                "the Insights screen, or PUT /api/insights/me)",
            )
        # Every name the identity directory knows for the same person counts as "me".
        names = DirectoryPeople(self.directory).all_names(names)
        return open_loops(self._ranked(), names, limit)

    def search(self, query: str, limit: int = 10) -> list[RankedInsight]:
        if not query.strip():
            raise InvalidInput("search needs some text")
        hits = self.index.search(self.db, self.user_id, query, limit)
        by_id = {r.id: r for r in self._ranked()}
        return [by_id[i] for i, _ in hits if i in by_id]

    def memory_hits(self, query: MessageQuery) -> list[SearchHit]:
        """Insights as unified-search hits (kind "insight"), for `include=["insights"]`.

        Scored by the corpus's one fusion, so their relevance merges with messages and documents;
        the query's platform, channel, person and date filters apply to the insight's own fields.
        Dismissed insights are left out: the user said they do not matter."""
        if not query.text.strip():
            return []
        found = self.index.search(self.db, self.user_id, query.text, max(query.limit, 10))
        with self.db.read() as session:
            rows = {r.id: r for r in self.repo.rows(session, self.user_id, [i for i, _ in found])}
            states = self.states.states(session, self.user_id)
        now = self.clock.now_ms()
        hits: list[SearchHit] = []
        for insight_id, relevance in found:
            row = rows.get(insight_id)
            if row is None:
                continue  # a vector whose row is gone: skipped as every kind does
            draft = to_draft(row)
            state, _ = lifecycle.effective(draft.status, states.get(insight_id), now)
            if state == lifecycle.DISMISSED or not _passes(draft, query.filters):
                continue
            hits.append(insight_to_search_hit(insight_id, draft, state, relevance))
        return hits

    def count(self) -> int:
        with self.db.read() as session:
            return len(self.repo.rows(session, self.user_id))

    # -- helpers ---------------------------------------------------------------------------------
    def _ranked(self) -> list[RankedInsight]:
        now = self.clock.now_ms()
        with self.db.read() as session:
            rows = self.repo.rows(session, self.user_id)
            weights = self.repo.weight_rows(session, self.user_id)
            times = self.repo.access_times(session, self.user_id, now - 30 * DAY_MS)
            states = self.states.states(session, self.user_id)
        items = []
        for r in rows:
            insight = to_insight(r, to_weights(weights.get(r.id)))
            user = states.get(r.id)
            state, until = lifecycle.effective(insight.draft.status, user, now)
            at = user.at if user is not None else None
            insight = replace(insight, lifecycle=state, snoozed_until=until, lifecycle_set_at=at)
            items.append((insight, times.get(r.id, [])))
        return rank(items, now=now, frequency_max=self.frequency_max)

    def _one(self, insight_id: str) -> RankedInsight:
        for r in self._ranked():
            if r.id == insight_id:
                return r
        raise NotFound(f"no insight with id {insight_id!r}", hint="list ids with `strata insights list`")

    def _row(self, session: Any, insight_id: str) -> Any:
        rows = self.repo.rows(session, self.user_id, [insight_id])
        if not rows:
            raise NotFound(f"no insight with id {insight_id!r}", hint="list ids with `strata insights list`")
        return rows[0]


def _passes(draft: InsightDraft, filters: SearchFilters) -> bool:
    people = {p for p in (draft.owner, draft.author, *draft.addressed_to) if p}
    return (
        (not filters.platforms or draft.platform in filters.platforms)
        and (not filters.channels or draft.channel in filters.channels)
        and (not filters.persons or bool(people & set(filters.persons)))
        and (filters.since is None or draft.occurred_at >= filters.since)
        and (filters.until is None or draft.occurred_at <= filters.until)
    )


def insight_to_search_hit(insight_id: str, draft: InsightDraft, state: str, relevance: float) -> SearchHit:
    """Provenance for unified search: the insight's kind, lifecycle and the messages it rests on."""
    return SearchHit(
        id=f"insight:{insight_id}",
        kind="insight",
        content=f"{draft.title}: {draft.description}" if draft.description else draft.title,
        score=relevance,
        platform=draft.platform or None,
        channel=draft.channel or None,
        person=draft.owner or draft.author,
        timestamp=draft.occurred_at,
        tier=None,
        extra={
            "insight_id": insight_id,
            "insight_kind": draft.kind.value,
            "lifecycle": state,
            "evidence": list(draft.evidence),
        },
        relevance=relevance,
    )


def _check(value: str, allowed: Sequence[str], name: str) -> None:
    if value not in allowed:
        raise InvalidInput(f"unknown {name} {value!r}", hint=f"use one of: {', '.join(allowed)}")


def _sort_key(sort: str) -> Callable[[RankedInsight], Any]:
    if sort == "value":
        return lambda r: (-r.value.total, r.id)
    if sort == "recent":
        return lambda r: (-r.insight.draft.occurred_at, r.id)
    if sort == "due":
        return lambda r: (r.insight.draft.due_at is None, r.insight.draft.due_at or 0, r.id)
    if sort == "importance":
        return lambda r: (_LEVEL[r.insight.draft.importance.value], -r.score, r.id)
    if sort == "urgency":
        return lambda r: (_LEVEL[r.insight.draft.urgency.value], -r.score, r.id)
    return lambda r: (r.insight.weights.current_event_rank or 0, r.id)


def build_insights_service(
    settings: Settings, *, db: Database, vectors: VectorStore, embedder: Embedder, keywords: KeywordIndex,
    clock: Clock, events: EventBus | None = None, llm: LLM | None = None,
    leases: WriterLeases | None = None, fusion: FusionParams | None = None,
) -> InsightsService:  # fmt: skip
    """Wire rules (always) and the LLM extractor (when configured) into a pipeline and the service."""
    try:
        tz = ZoneInfo(settings.insights.timezone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(
            f"unknown time zone {settings.insights.timezone!r} in insights.timezone",
            hint="use an IANA name such as Europe/Berlin or UTC",
        ) from exc
    names = _LiveNames(settings.insights.identities)
    rules = RuleExtractor(tz=tz, known_names=names)
    extractor: Extractor = rules
    if llm is not None and settings.llm.enabled and settings.insights.use_llm:
        extractor = LLMExtractor(llm, fallback=rules)
    index = InsightIndex(vectors, embedder, keywords, leases=leases, fusion=fusion)
    pipeline = InsightPipeline(db, index, extractor, clock, user_id=settings.user_id, embedder=embedder)
    service = InsightsService(
        db, pipeline, index, clock, user_id=settings.user_id, identities=settings.insights.identities,
        frequency_max=settings.insights.frequency_max_count, events=events,
    )  # fmt: skip
    names.source = service.me
    return service


class _LiveNames:
    """The user's names as the extractor sees them: re-read per run, so `strata insights me` counts."""

    def __init__(self, fallback: Sequence[str]) -> None:
        self.source: Callable[[], Sequence[str]] = lambda: tuple(fallback)

    def __iter__(self) -> Iterator[str]:
        return iter(self.source())
