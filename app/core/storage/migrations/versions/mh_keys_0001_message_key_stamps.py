"""Sentence keys of messages: which messages have their keys embedded, with which model.

The keys themselves are derived from `raw_messages` (app/core/index/key_text.py) and live only
as vectors; this table records per message how many keys it has, from which text (the
message's `text_hash`), and for which model, so the key backlog and repair know what to do.
"""

import sqlalchemy as sa
from alembic import op

revision = "mh_keys_0001_message_key_stamps"
down_revision = "scale_ingest_0001_backlog"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "message_key_stamps",
        sa.Column(
            "message_id", sa.Integer, sa.ForeignKey("raw_messages.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("key_count", sa.Integer, nullable=False),
        sa.Column("text_hash", sa.String(32), nullable=False),
        sa.Column("embedding_model", sa.String(200), nullable=False),
        sa.Column("embedding_dimensions", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("message_key_stamps")
