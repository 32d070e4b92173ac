"""plan(records, clock, config) -> ForgetPlan: pure, previewable decisions for one user's forgetting run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from app.core.clock import Clock, iso
from app.core.domain import MessageRecord, Tier
from app.core.errors import InvalidInput
from forgetting import constants as c
from forgetting.config import ForgetConfig, TierRule
from forgetting.grouping import Group, dimensions_dict, group_candidates, is_candidate
from forgetting.scoring import ScoreBreakdown, score_record
from forgetting.summarizer import RuleBasedSummarizer, Summarizer, SummaryDraft

PROMOTE = "promote"
ARCHIVE = "archive"


@dataclass(frozen=True, slots=True)
class RecordDecision:
    """What happens to one record and why (`reason`: score, pinned, keep_forever, below_threshold)."""

    record_id: int
    action: str
    reason: str
    threshold: float
    breakdown: ScoreBreakdown

    @property
    def score(self) -> float:
        return self.breakdown.score

    def to_dict(self) -> dict[str, Any]:
        return {
            "recordId": self.record_id,
            "action": self.action,
            "reason": self.reason,
            "threshold": self.threshold,
            "score": round(self.score, 6),
            "breakdown": self.breakdown.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class GroupPlan:
    """One group: its future memory_summaries row and the decision for each member record."""

    summary_id: str
    user_id: str
    source_tier: Tier
    target_tier: Tier
    summary_tier: str
    bucket_start: int
    bucket_end: int
    start_timestamp: int
    end_timestamp: int
    dimensions: dict[str, str | None]
    decisions: tuple[RecordDecision, ...]
    records: tuple[MessageRecord, ...] = field(repr=False)
    draft: SummaryDraft

    @property
    def record_ids(self) -> tuple[int, ...]:
        return tuple(d.record_id for d in self.decisions)

    @property
    def promoted_ids(self) -> tuple[int, ...]:
        return tuple(d.record_id for d in self.decisions if d.action == PROMOTE)

    @property
    def archived_ids(self) -> tuple[int, ...]:
        return tuple(d.record_id for d in self.decisions if d.action == ARCHIVE)

    def to_dict(self, *, details: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "summaryId": self.summary_id,
            "sourceTier": self.source_tier.value,
            "targetTier": self.target_tier.value,
            "summaryTier": self.summary_tier,
            "startTimestamp": self.start_timestamp,
            "endTimestamp": self.end_timestamp,
            "start": iso(self.start_timestamp),
            "end": iso(self.end_timestamp),
            "dimensions": self.dimensions,
            "messageCount": len(self.decisions),
            "sourceRecordIds": list(self.record_ids),
            "promoted": len(self.promoted_ids),
            "archived": len(self.archived_ids),
        }
        if details:
            data["decisions"] = [d.to_dict() for d in self.decisions]
            data["summary"] = self.draft.to_dict()
        return data


@dataclass(frozen=True, slots=True)
class TierCounts:
    """Per-tier totals of a plan (or of an applied run)."""

    tier: Tier
    evaluated: int = 0
    promoted: int = 0
    archived: int = 0
    summarized: int = 0  # groups that became summaries
    skipped: int = 0  # candidates in groups under the minimum size
    deferred: int = 0  # candidates left for a later run by the per-tier cap
    failed: int = 0  # groups left untouched because their summary could not be made or written

    def to_dict(self) -> dict[str, Any]:
        return {
            "tier": self.tier.value,
            "evaluated": self.evaluated,
            "promoted": self.promoted,
            "archived": self.archived,
            "summarized": self.summarized,
            "skipped": self.skipped,
            "deferred": self.deferred,
            "failed": self.failed,
        }


@dataclass(frozen=True, slots=True)
class PlanError:
    """A group the plan had to leave out (e.g. its summarizer raised); reported, never fatal."""

    summary_id: str
    tier: Tier
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"summaryId": self.summary_id, "tier": self.tier.value, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ForgetPlan:
    user_id: str
    now_ms: int
    tiers: tuple[TierCounts, ...]
    groups: tuple[GroupPlan, ...]
    errors: tuple[PlanError, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.groups

    def with_drafts(self, drafts: dict[str, SummaryDraft]) -> ForgetPlan:
        """The same plan with some groups' summaries replaced (e.g. by the LLM summarizer)."""
        groups = tuple(replace(g, draft=drafts.get(g.summary_id, g.draft)) for g in self.groups)
        return replace(self, groups=groups)

    def with_scan_counts(self, left_out: dict[Tier, tuple[int, int]]) -> ForgetPlan:
        """Add (skipped, deferred) counted by a storage scan that never loaded those records."""
        tiers = tuple(
            replace(
                t,
                skipped=t.skipped + left_out.get(t.tier, (0, 0))[0],
                deferred=t.deferred + left_out.get(t.tier, (0, 0))[1],
            )
            for t in self.tiers
        )
        return replace(self, tiers=tiers)

    def to_dict(self, *, details: bool = True) -> dict[str, Any]:
        return {
            "userId": self.user_id,
            "now": iso(self.now_ms),
            "tiers": [t.to_dict() for t in self.tiers],
            "groups": [g.to_dict(details=details) for g in self.groups],
            "errors": [e.to_dict() for e in self.errors],
        }


def summary_id(user_id: str, rule: TierRule, group: Group) -> str:
    """Deterministic `ms_<hash>` from the inputs, so re-applying the same plan is idempotent."""
    payload = json.dumps(
        [
            user_id,
            rule.source.value,
            group.bucket_start,
            list(group.key),
            sorted(r.id for r in group.records),
        ],
        separators=(",", ":"),
    )
    return c.SUMMARY_ID_PREFIX + hashlib.sha256(payload.encode()).hexdigest()[:24]


def decide(record: MessageRecord, rule: TierRule, config: ForgetConfig, now_ms: int) -> RecordDecision:
    breakdown = score_record(record, now_ms)
    threshold = config.threshold_for(rule, record.platform, record.channel)
    if breakdown.score >= threshold:
        return RecordDecision(record.id, PROMOTE, "score", threshold, breakdown)
    # Protected records move on with their group but are never archived.
    if record.is_pinned:
        return RecordDecision(record.id, PROMOTE, "pinned", threshold, breakdown)
    if config.keeps_forever(record.platform, record.channel):
        return RecordDecision(record.id, PROMOTE, "keep_forever", threshold, breakdown)
    return RecordDecision(record.id, ARCHIVE, "below_threshold", threshold, breakdown)


def _single_user(records: list[MessageRecord], user_id: str | None) -> str:
    users = {r.user_id for r in records}
    if user_id is not None:
        return user_id
    if len(users) > 1:
        raise InvalidInput(
            f"plan() got records of {len(users)} users ({', '.join(sorted(users))})",
            hint="plan one user at a time, or pass user_id= to pick one",
        )
    return users.pop() if users else "local"


def plan(
    records: Iterable[MessageRecord],
    clock: Clock,
    config: ForgetConfig | None = None,
    *,
    user_id: str | None = None,
    summarizer: Summarizer | None = None,
) -> ForgetPlan:
    """Decide promotions, archives and summaries without touching storage.

    Records that are not candidates (too young, archived, other tier or user) are ignored, so
    callers may pass a superset.
    """
    config = config or ForgetConfig()
    summarizer = summarizer or RuleBasedSummarizer(config.max_key_points, config.max_keywords)
    now = clock.now_ms()
    pool = list(records)
    owner = _single_user(pool, user_id)
    pool = [r for r in pool if r.user_id == owner]
    tiers: list[TierCounts] = []
    groups: list[GroupPlan] = []
    errors: list[PlanError] = []
    for rule in config.rules:
        candidates = [r for r in pool if is_candidate(r, rule, now)]
        grouping = group_candidates(
            candidates, rule, min_size=config.min_group_size, cap=config.max_candidates_per_tier
        )
        promoted = archived = evaluated = failed = 0
        for group in grouping.groups:
            sid = summary_id(owner, rule, group)
            try:
                draft = summarizer.summarize(group.records)
            except Exception as exc:  # one bad group must not sink the run: report it, touch nothing
                errors.append(PlanError(sid, rule.source, f"summarizer failed: {type(exc).__name__}: {exc}"))
                failed += 1
                continue
            decisions = tuple(decide(r, rule, config, now) for r in group.records)
            evaluated += len(decisions)
            promoted += sum(d.action == PROMOTE for d in decisions)
            archived += sum(d.action == ARCHIVE for d in decisions)
            groups.append(
                GroupPlan(
                    summary_id=sid,
                    user_id=owner,
                    source_tier=rule.source,
                    target_tier=rule.target,
                    summary_tier=rule.summary_tier,
                    bucket_start=group.bucket_start,
                    bucket_end=group.bucket_end,
                    start_timestamp=group.records[0].timestamp,
                    end_timestamp=max(r.timestamp for r in group.records),
                    dimensions=dimensions_dict(group.key),
                    decisions=decisions,
                    records=group.records,
                    draft=draft,
                )
            )
        tiers.append(
            TierCounts(
                rule.source,
                evaluated=evaluated,
                promoted=promoted,
                archived=archived,
                summarized=len(grouping.groups) - failed,
                skipped=grouping.skipped_small,
                deferred=grouping.deferred,
                failed=failed,
            )
        )
    return ForgetPlan(owner, now, tuple(tiers), tuple(groups), tuple(errors))
