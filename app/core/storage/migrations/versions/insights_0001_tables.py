"""Insights: insights, per-user weights, access-event log, group cursors, LLM usage."""

import sqlalchemy as sa
from alembic import op

revision = "insights_0001"
down_revision = "0001_core"
branch_labels = ("insights",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "insights",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("bot_id", sa.String(256), nullable=False),
        sa.Column("dedupe_key", sa.String(1024), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("importance", sa.String(16), nullable=False),
        sa.Column("urgency", sa.String(16), nullable=False),
        sa.Column("task_label", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(256)),
        sa.Column("author", sa.String(256)),
        sa.Column("addressed_to", sa.JSON, nullable=False),
        sa.Column("due_at", sa.BigInteger),
        sa.Column("occurred_at", sa.BigInteger, nullable=False),
        sa.Column("platform", sa.String(64), nullable=False),
        sa.Column("channel", sa.String(512), nullable=False),
        sa.Column("details", sa.JSON, nullable=False),
        sa.Column("timeline", sa.JSON, nullable=False),
        sa.Column("evidence", sa.JSON, nullable=False),
        sa.Column("extractor", sa.String(16), nullable=False),
        sa.Column("content_hash", sa.String(32), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ux_insights_bot_dedupe", "insights", ["bot_id", "dedupe_key"], unique=True)
    op.create_index("ix_insights_user_kind_status", "insights", ["user_id", "kind", "status"])
    op.create_index("ix_insights_user_updated", "insights", ["user_id", "updated_at"])
    op.create_table(
        "insight_weights",
        sa.Column("insight_id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("custom_weight_multiplier", sa.Float, nullable=False, server_default="1.0"),
        sa.Column("favorite", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("favorited_at", sa.BigInteger),
        sa.Column("last_viewed_at", sa.BigInteger),
        sa.Column("view_boost_at", sa.BigInteger),
        sa.Column("current_event_rank", sa.Integer),
    )
    op.create_table(
        "insight_access_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("insight_id", sa.String(36), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_insight_access_insight_at", "insight_access_events", ["insight_id", "at"])
    op.create_table(
        "insight_group_cursors",
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("platform", sa.String(64), primary_key=True),
        sa.Column("channel", sa.String(512), primary_key=True),
        sa.Column("last_row_id", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_run_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "insight_llm_usage",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("prompt_tokens", sa.Integer, nullable=False),
        sa.Column("completion_tokens", sa.Integer, nullable=False),
        sa.Column("cost", sa.Float, nullable=False),
    )
    op.create_index("ix_insight_llm_usage_at", "insight_llm_usage", ["at"])


def downgrade() -> None:
    op.drop_table("insight_llm_usage")
    op.drop_table("insight_group_cursors")
    op.drop_table("insight_access_events")
    op.drop_table("insight_weights")
    op.drop_table("insights")
