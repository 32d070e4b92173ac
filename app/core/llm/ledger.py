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

OUTCOMES = ("ok", "error", "capped")


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
        """(tokens, cost) the user spent on `day` across every feature."""
        tokens = LLMUsageRow.prompt_tokens + LLMUsageRow.completion_tokens
        with self._db.read() as session:
            row = session.execute(
                select(
                    func.coalesce(func.sum(tokens), 0), func.coalesce(func.sum(LLMUsageRow.cost), 0.0)
                ).where(LLMUsageRow.user_id == user_id, LLMUsageRow.day == day)
            ).one()
            return int(row[0] or 0), float(row[1] or 0.0)

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


def _line(r: Any) -> UsageLine:
    calls, capped, errors, prompt, completion = (int(x or 0) for x in (r[3], r[4], r[5], r[6], r[7]))
    return UsageLine(
        r[0], r[1], r[2], calls, capped, errors, prompt, completion, float(r[8] or 0.0), int(r[9] or 0)
    )
