"""LLM usage ledger for every feature (per user, day, feature, model); takes over insight_llm_usage."""

import sqlalchemy as sa
from alembic import op

revision = "privacy_0001_llm_usage"
# After insights_0001: its old insight_llm_usage rows are copied here, then that table goes.
down_revision = "insights_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "llm_usage",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("feature", sa.String(64), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("prompt_tokens", sa.Integer, nullable=False, server_default="0"),
        sa.Column("completion_tokens", sa.Integer, nullable=False, server_default="0"),
        sa.Column("cost", sa.Float, nullable=False, server_default="0"),
        sa.Column("redactions", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_index("ix_llm_usage_user_day", "llm_usage", ["user_id", "day"])
    bind = op.get_bind()
    # The old table had no user column. The extractor ran for the user who owns the insights:
    # when exactly one user does, the rows are theirs; otherwise the default user "local".
    owners = [r[0] for r in bind.execute(sa.text("SELECT DISTINCT user_id FROM insights")).fetchall()]
    owner = owners[0] if len(owners) == 1 else "local"
    bind.execute(
        sa.text(
            "INSERT INTO llm_usage (user_id, at, day, feature, model, outcome, prompt_tokens, "
            "completion_tokens, cost, redactions) "
            "SELECT :owner, at, strftime('%Y-%m-%d', at / 1000, 'unixepoch'), 'insights', model, 'ok', "
            "prompt_tokens, completion_tokens, cost, 0 FROM insight_llm_usage"
        ),
        {"owner": owner},
    )
    op.drop_index("ix_insight_llm_usage_at", table_name="insight_llm_usage")
    op.drop_table("insight_llm_usage")


def downgrade() -> None:
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
    op.execute(
        "INSERT INTO insight_llm_usage (at, model, prompt_tokens, completion_tokens, cost) "
        "SELECT at, model, prompt_tokens, completion_tokens, cost FROM llm_usage WHERE feature = 'insights'"
    )
    op.drop_table("llm_usage")
