"""The old insight_llm_usage rows move into llm_usage (feature "insights", the insights' owner)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from app.core.llm.ledger import UsageLedger
from app.core.storage.db import Database
from app.core.storage.migrate import alembic_config, migrate
from tests.conftest import NOW_MS


def test_upgrade_moves_the_insight_ledger_and_drops_the_old_table(tmp_path) -> None:
    db = Database(tmp_path / "old.db")
    config = alembic_config()
    with db.write_engine.connect() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "insights_0001")  # a data dir from before this change
        conn.execute(
            sa.text(
                "INSERT INTO insight_llm_usage (at, model, prompt_tokens, completion_tokens, cost) "
                "VALUES (:at, 'gpt-4o-mini', 1200, 300, 0.00036), (:at, 'gpt-4o-mini', 800, 100, 0.00018)"
            ),
            {"at": NOW_MS},
        )
        conn.commit()
    migrate(db)
    (line,) = UsageLedger(db).lines("local")
    assert (line.day, line.feature, line.model, line.calls) == ("2026-11-21", "insights", "gpt-4o-mini", 2)
    assert (line.prompt_tokens, line.completion_tokens) == (2000, 400)
    assert abs(line.cost - 0.00054) < 1e-9
    with db.read_engine.connect() as conn:
        assert "insight_llm_usage" not in sa.inspect(conn).get_table_names()
    db.dispose()
