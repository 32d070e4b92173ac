"""Build the real guarded LLM (transport + ledger on a real SQLite file) against a local fake server."""

from __future__ import annotations

from pathlib import Path

from app.core.clock import Clock
from app.core.llm.guard import Caps, GuardedLLM
from app.core.llm.ledger import UsageLedger
from app.core.llm.transport import OpenAICompatChat
from app.core.privacy.detector import Detector
from app.core.storage.db import Database
from app.core.storage.migrate import migrate


def open_db(tmp_path: Path) -> Database:
    db = Database(tmp_path / "llm.db")
    migrate(db)
    return db


def guarded_llm(
    url: str,
    db: Database,
    clock: Clock,
    *,
    cap: int = 1_000_000,
    cost_cap: float = 0.0,
    timeout: float = 5.0,
    key: str | None = "test-key",
    user_id: str = "local",
) -> GuardedLLM:
    transport = OpenAICompatChat(
        model="fake-model", base_url=url, timeout_seconds=timeout, key=lambda: key, max_retries=0
    )
    return GuardedLLM(
        transport,
        ledger=UsageLedger(db),
        clock=clock,
        user_id=user_id,
        caps=Caps(daily_tokens=cap, daily_cost=cost_cap),
        detector=Detector(),
    )
