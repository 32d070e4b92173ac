"""Embedding backlog: a partial index over the messages that have no vector yet.

Rows are stored (and keyword-searchable) first and embedded later in the background; the
backlog is the set of rows without an embedding stamp. The partial index holds only those, so
counting the backlog and taking its next batch cost O(backlog), not a scan of every message.
"""

from alembic import op

revision = "scale_ingest_0001_backlog"
down_revision = "0001_core"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_raw_messages_unembedded ON raw_messages (id) "
        "WHERE embedding_content_hash IS NULL"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_raw_messages_unembedded")
