"""Insight use cases: generate, list / filter / sort, get (counts a view), favorite, trend, brief, search."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.core.clock import DAY_MS, Clock
from app.core.embeddings.base import Embedder
from app.core.errors import ConfigError, InvalidInput, NotFound
from app.core.events import Change, EventBus
from app.core.settings import Settings
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.vectors import VectorStore
from app.services.llm import LLMClient, LLMKeys
from insights import scoring, trends
from insights.brief import OpenLoops, open_loops
from insights.extractors import Extractor
from insights.extractors.llm import LLMExtractor
from insights.extractors.rules import RuleExtractor
from insights.index import InsightIndex
from insights.model import Importance, InsightKind, InsightStatus
from insights.pipeline import GenerationReport, InsightPipeline
from insights.ranking import RankedInsight, rank
from insights.repository import InsightRepository, SqlUsageLedger, to_insight, to_weights

SORTS = ("score", "value", "recent", "due", "importance", "urgency")
STATES = ("active", "dormant")
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

    # -- generation --------------------------------------------------------------------------------
    def generate(
        self, *, full: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> GenerationReport:
        report = self.pipeline.run(full=full, progress=progress)
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
        kind: str | None = None, status: str | None = None,
    ) -> None:  # fmt: skip
        """InvalidInput naming the allowed values when a list filter is unknown."""
        _check(sort, SORTS, "sort")
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
        limit: int = 50, offset: int = 0,
    ) -> list[RankedInsight]:  # fmt: skip
        self.check_filters(sort=sort, importance=importance, state=state, kind=kind, status=status)
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
        names = tuple(identities) if identities else self.identities
        if not names:
            raise ConfigError(
                "no identities configured, so Strata cannot tell which tasks are yours",
                hint='set insights.identities = ["your name", "your handle"] in settings.toml '
                "or STRATA_INSIGHTS__IDENTITIES='[\"alex\"]'",
            )
        return open_loops(self._ranked(), names, limit)

    def search(self, query: str, limit: int = 10) -> list[RankedInsight]:
        if not query.strip():
            raise InvalidInput("search needs some text")
        hits = self.index.search(self.db, self.user_id, query, limit)
        by_id = {r.id: r for r in self._ranked()}
        return [by_id[i] for i, _ in hits if i in by_id]

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
        items = [(to_insight(r, to_weights(weights.get(r.id))), times.get(r.id, [])) for r in rows]
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
    clock: Clock, events: EventBus | None = None, llm_client: Any = None,
) -> InsightsService:  # fmt: skip
    """Wire rules (always) and the LLM extractor (when configured) into a pipeline and the service."""
    try:
        tz = ZoneInfo(settings.insights.timezone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(
            f"unknown time zone {settings.insights.timezone!r} in insights.timezone",
            hint="use an IANA name such as Europe/Berlin or UTC",
        ) from exc
    rules = RuleExtractor(tz=tz, known_names=settings.insights.identities)
    extractor: Extractor = rules
    if settings.llm.enabled and settings.insights.use_llm:
        # Without a client from the composition root, the key comes from the environment only.
        client = llm_client or LLMClient(settings.llm, LLMKeys(None))
        extractor = LLMExtractor(
            client, model=settings.llm.model, fallback=rules, ledger=SqlUsageLedger(db), clock=clock,
            daily_token_cap=settings.llm.daily_token_cap,
        )  # fmt: skip
    index = InsightIndex(vectors, embedder, keywords)
    pipeline = InsightPipeline(db, index, extractor, clock, user_id=settings.user_id)
    return InsightsService(
        db, pipeline, index, clock, user_id=settings.user_id, identities=settings.insights.identities,
        frequency_max=settings.insights.frequency_max_count, events=events,
    )  # fmt: skip
