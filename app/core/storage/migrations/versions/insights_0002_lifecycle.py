"""Insights: merged restatements (aliases), the user-set lifecycle, and the user's own names."""

import sqlalchemy as sa
from alembic import op

revision = "insights_0002_lifecycle"
down_revision = "insights_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "insight_aliases",
        sa.Column("bot_id", sa.String(256), primary_key=True),
        sa.Column("dedupe_key", sa.String(1024), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("insight_id", sa.String(36), nullable=False),
        sa.Column("content_hash", sa.String(32), nullable=False),
    )
    op.create_index("ix_insight_aliases_insight", "insight_aliases", ["insight_id"])
    op.create_table(
        "insight_states",
        sa.Column("insight_id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("until", sa.BigInteger),
        sa.Column("at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "insight_identities",
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(256), primary_key=True),
        sa.Column("at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("insight_identities")
    op.drop_table("insight_states")
    op.drop_index("ix_insight_aliases_insight", table_name="insight_aliases")
    op.drop_table("insight_aliases")
