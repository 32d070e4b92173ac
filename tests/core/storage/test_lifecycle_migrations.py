"""The lifecycle migrations upgrade an existing store: owners filled in, the insights key made per user."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import text

from app.core.storage.db import Database
from app.core.storage.migrate import alembic_config, migrate


def test_upgrade_fills_owners_and_replaces_the_insights_key(tmp_path: Path) -> None:
    db = Database(tmp_path / "strata.sqlite3")
    config = alembic_config()
    with db.write_engine.connect() as conn:
        config.attributes["connection"] = conn
        for revision in ("connectors_0001", "insights_0001"):  # the store as it was before issue 13
            command.upgrade(config, revision)
        conn.commit()
    with db.write() as session:
        session.execute(
            text(
                "INSERT INTO locks(key, token, acquired_at, expires_at) VALUES "
                "('memory_forgetting:alice', 't', 1, 2), ('other-lock', 'u', 1, 2)"
            )
        )
        session.execute(
            text(
                "INSERT INTO connector_state(id, kind, options, created_at, updated_at) "
                "VALUES ('slack', 'slack', '{}', 1, 1)"
            )
        )
    migrate(db)
    with db.read() as session:
        locks = dict(session.execute(text("SELECT key, user_id FROM locks")).all())
        owners = session.execute(text("SELECT user_id FROM connector_state")).scalars().all()
        indexes = {r[1]: r[2] for r in session.execute(text("PRAGMA index_list('insights')")).all()}
    assert locks == {"memory_forgetting:alice": "alice", "other-lock": "local"}
    assert owners == ["local"]
    assert indexes.get("ux_insights_user_bot_dedupe") == 1 and "ux_insights_bot_dedupe" not in indexes
    db.dispose()
