"""Forgetting engine: forget_runs, forget_run_items, forget_schedule, and its candidate-scan index."""

import sqlalchemy as sa
from alembic import op

revision = "forgetting_0001"
down_revision = "0001_core"
branch_labels = ("forgetting",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "forget_runs",
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("trigger", sa.String(32), nullable=False, server_default="manual"),
        sa.Column("dry_run", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("started_at", sa.BigInteger, nullable=False),
        sa.Column("finished_at", sa.BigInteger),
        sa.Column("undone_at", sa.BigInteger),
        sa.Column("lock_token", sa.String(512)),
        sa.Column("counts", sa.JSON, nullable=False),
        sa.Column("errors", sa.JSON, nullable=False),
        sa.Column("summary_ids", sa.JSON, nullable=False),
        sa.Column("message", sa.Text, nullable=False, server_default=""),
    )
    op.create_index("ix_forget_runs_user_started", "forget_runs", ["user_id", "started_at"])
    op.create_table(
        "forget_run_items",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("record_id", sa.Integer, nullable=False),
        sa.Column("summary_id", sa.String(64), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("prev_stage", sa.String(8), nullable=False),
        sa.Column("new_stage", sa.String(8), nullable=False),
        sa.Column("prev_summary_ref_id", sa.String(64)),
        sa.Column("applied_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_forget_run_items_run", "forget_run_items", ["run_id"])
    op.create_index("ix_forget_run_items_record", "forget_run_items", ["record_id"])
    op.create_table(
        "forget_schedule",
        sa.Column("job_id", sa.String(64), primary_key=True),
        sa.Column("host", sa.String(256), nullable=False, server_default=""),
        sa.Column("pid", sa.Integer, nullable=False, server_default="0"),
        sa.Column("interval_minutes", sa.Integer, nullable=False, server_default="60"),
        sa.Column("next_run_at", sa.BigInteger),
        sa.Column("last_run_at", sa.BigInteger),
        sa.Column("last_status", sa.String(32)),
        sa.Column("updated_at", sa.BigInteger, nullable=False, server_default="0"),
    )
    # Candidate scans filter by owner, tier, "not archived" and an age cutoff: with this index the
    # scan touches only over-age unarchived rows of one tier, so cost follows candidates, not size.
    op.create_index(
        "ix_raw_messages_forget_scan",
        "raw_messages",
        ["user_id", "memory_stage", "archived_at", "timestamp"],
    )


def downgrade() -> None:
    op.drop_index("ix_raw_messages_forget_scan", table_name="raw_messages")
    op.drop_table("forget_schedule")
    op.drop_index("ix_forget_run_items_record", table_name="forget_run_items")
    op.drop_index("ix_forget_run_items_run", table_name="forget_run_items")
    op.drop_table("forget_run_items")
    op.drop_index("ix_forget_runs_user_started", table_name="forget_runs")
    op.drop_table("forget_runs")
