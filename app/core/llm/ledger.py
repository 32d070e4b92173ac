"""The LLM usage ledger in SQLite: one row per call (or refused call), per user, day, feature and model.

Kept in SQLite, not in memory, so the daily cap holds across the desktop app, the CLI and a stdio
MCP server on the same data dir, and across restarts. Days are UTC calendar days.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, Float, Index, Integer, String, case, func, select
from sqlalchemy.orm import Mapped, mapped_column

from app.core.storage.db import Database
from app.core.storage.models import Base

# "pending": a call in flight holds its estimate, so another process checking the cap sees it.
OUTCOMES = ("ok", "error", "capped", "pending")


class LLMUsageRow(Base):
    """One LLM call: tokens and cost when it ran, `capped` when the cap stopped it before sending."""

    __tablename__ = "llm_usage"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(64))
    at: Mapped[int] = mapped_column(BigInteger)
    day: Mapped[str] = mapped_column(String(10))
    feature: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(200))
    outcome: Mapped[str] = mapped_column(String(16))
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[float] = mapped_column(Float, default=0.0)
    redactions: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (Index("ix_llm_usage_user_day", "user_id", "day"),)


def utc_day(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, UTC).strftime("%Y-%m-%d")


@dataclass(frozen=True, slots=True)
class UsageLine:
    """Totals for one (day, feature, model)."""

    day: str
    feature: str
    model: str
    calls: int
    capped: int
    errors: int
    prompt_tokens: int
    completion_tokens: int
    cost: float
    redactions: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "day": self.day,
            "feature": self.feature,
            "model": self.model,
            "calls": self.calls,
            "capped": self.capped,
            "errors": self.errors,
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
            "totalTokens": self.prompt_tokens + self.completion_tokens,
            "cost": round(self.cost, 6),
            "redactions": self.redactions,
        }


class UsageLedger:
    def __init__(self, db: Database) -> None:
        self._db = db

    def record(
        self,
        *,
        user_id: str,
        at: int,
        feature: str,
        model: str,
        outcome: str,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        cost: float = 0.0,
        redactions: int = 0,
    ) -> None:
        with self._db.write() as session:
            session.add(
                LLMUsageRow(
                    user_id=user_id,
                    at=at,
                    day=utc_day(at),
                    feature=feature,
                    model=model,
                    outcome=outcome,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                    cost=cost,
                    redactions=redactions,
                )
            )

    def spent(self, user_id: str, day: str) -> tuple[int, float]:
        """(tokens, cost) the user spent on `day` across every feature (calls in flight included)."""
        with self._db.read() as session:
            return _spent(session, user_id, day)

    def reserve(
        self, *, user_id: str, at: int, feature: str, model: str, tokens: int, cost: float, cap: Cap,
        redactions: int = 0,
    ) -> Reservation:  # fmt: skip
        """Check the caps and hold the estimate in one write transaction (BEGIN IMMEDIATE), so two
        processes cannot both pass the check on the last of the budget. Refusals are recorded."""
        day = utc_day(at)
        with self._db.write() as session:
            used_tokens, used_cost = _spent(session, user_id, day)
            over_tokens = used_tokens + tokens > cap.daily_tokens
            over_cost = cap.daily_cost > 0 and used_cost + cost > cap.daily_cost
            row = LLMUsageRow(
                user_id=user_id, at=at, day=day, feature=feature, model=model,
                outcome="capped" if over_tokens or over_cost else "pending",
                prompt_tokens=0 if over_tokens or over_cost else tokens, completion_tokens=0,
                cost=0.0 if over_tokens or over_cost else cost, redactions=redactions,
            )  # fmt: skip
            session.add(row)
            session.flush()
            return Reservation(row.id, over_tokens, over_cost, used_tokens, used_cost)

    def settle(self, row_id: int, *, outcome: str, prompt_tokens: int = 0, completion_tokens: int = 0,
               cost: float = 0.0) -> None:  # fmt: skip
        """Replace a reservation's estimate by what the call really used."""
        with self._db.write() as session:
            row = session.get(LLMUsageRow, row_id)
            if row is not None:
                row.outcome, row.prompt_tokens, row.completion_tokens, row.cost = (
                    outcome,
                    prompt_tokens,
                    completion_tokens,
                    cost,
                )

    def lines(self, user_id: str, *, since_day: str | None = None) -> list[UsageLine]:
        """Per (day, feature, model) totals, newest day first."""
        cols = (
            LLMUsageRow.day,
            LLMUsageRow.feature,
            LLMUsageRow.model,
            func.sum(case((LLMUsageRow.outcome == "ok", 1), else_=0)),
            func.sum(case((LLMUsageRow.outcome == "capped", 1), else_=0)),
            func.sum(case((LLMUsageRow.outcome == "error", 1), else_=0)),
            func.sum(LLMUsageRow.prompt_tokens),
            func.sum(LLMUsageRow.completion_tokens),
            func.sum(LLMUsageRow.cost),
            func.sum(LLMUsageRow.redactions),
        )
        stmt = select(*cols).where(LLMUsageRow.user_id == user_id)
        if since_day:
            stmt = stmt.where(LLMUsageRow.day >= since_day)
        stmt = stmt.group_by(LLMUsageRow.day, LLMUsageRow.feature, LLMUsageRow.model).order_by(
            LLMUsageRow.day.desc(), LLMUsageRow.feature, LLMUsageRow.model
        )
        with self._db.read() as session:
            return [_line(r) for r in session.execute(stmt)]


@dataclass(frozen=True, slots=True)
class Cap:
    daily_tokens: int
    daily_cost: float = 0.0  # US dollars; 0 = no cost cap


@dataclass(frozen=True, slots=True)
class Reservation:
    row_id: int
    over_tokens: bool
    over_cost: bool
    used_tokens: int
    used_cost: float

    @property
    def refused(self) -> bool:
        return self.over_tokens or self.over_cost


def _spent(session: Any, user_id: str, day: str) -> tuple[int, float]:
    tokens = LLMUsageRow.prompt_tokens + LLMUsageRow.completion_tokens
    row = session.execute(
        select(func.coalesce(func.sum(tokens), 0), func.coalesce(func.sum(LLMUsageRow.cost), 0.0)).where(
            LLMUsageRow.user_id == user_id, LLMUsageRow.day == day
        )
    ).one()
    return int(row[0] or 0), float(row[1] or 0.0)


def _line(r: Any) -> UsageLine:
    calls, capped, errors, prompt, completion = (int(x or 0) for x in (r[3], r[4], r[5], r[6], r[7]))
    return UsageLine(
        r[0], r[1], r[2], calls, capped, errors, prompt, completion, float(r[8] or 0.0), int(r[9] or 0)
    )
