"""Multi-user: the insights dedupe key is unique per user (user_id, bot_id, dedupe_key)."""

from alembic import op

revision = "lifecycle_0003"
down_revision = "insights_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ux_insights_bot_dedupe", "insights")
    op.create_index(
        "ux_insights_user_bot_dedupe", "insights", ["user_id", "bot_id", "dedupe_key"], unique=True
    )


def downgrade() -> None:
    op.drop_index("ux_insights_user_bot_dedupe", "insights")
    op.create_index("ux_insights_bot_dedupe", "insights", ["bot_id", "dedupe_key"], unique=True)
