"""Core schema: users, raw_messages, memory_summaries, audit_log, locks, keyword index."""

import time

import sqlalchemy as sa
from alembic import op

revision = "0001_core"
down_revision = None
branch_labels = ("core",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("display_name", sa.String(200), nullable=False, server_default=""),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.bulk_insert(
        sa.table("users", sa.column("id"), sa.column("display_name"), sa.column("created_at")),
        [{"id": "local", "display_name": "Local user", "created_at": int(time.time() * 1000)}],
    )
    op.create_table(
        "raw_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("message_id", sa.String(512), nullable=False),
        sa.Column("platform", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("bot_id", sa.String(256)),
        sa.Column("channel", sa.String(512), nullable=False, server_default=""),
        sa.Column("person", sa.String(512), nullable=False, server_default=""),
        sa.Column("timestamp", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("attachments", sa.JSON, nullable=False),
        sa.Column("embedding_model", sa.String(200)),
        sa.Column("embedding_content_hash", sa.String(32)),
        sa.Column("embedding_dimensions", sa.Integer),
        sa.Column("embedding_updated_at", sa.BigInteger),
        sa.Column("metadata", sa.JSON, nullable=False),
        sa.Column("memory_stage", sa.String(8), nullable=False, server_default="short"),
        sa.Column("access_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_access_at", sa.BigInteger),
        sa.Column("importance_score", sa.Float),
        sa.Column("archived_at", sa.BigInteger),
        sa.Column("is_pinned", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("summary_ref_id", sa.String(64)),
        sa.Column("text_hash", sa.String(32), nullable=False, server_default=""),
    )
    op.create_index(
        "ux_raw_messages_user_platform_message",
        "raw_messages",
        ["user_id", "platform", "message_id"],
        unique=True,
    )
    op.create_index("ix_raw_messages_user_stage", "raw_messages", ["user_id", "memory_stage"])
    op.create_index("ix_raw_messages_user_timestamp", "raw_messages", ["user_id", "timestamp"])
    op.create_index("ix_raw_messages_archived_at", "raw_messages", ["archived_at"])
    op.create_index("ix_raw_messages_is_pinned", "raw_messages", ["is_pinned"])
    op.create_index(
        "ix_raw_messages_user_channel_timestamp", "raw_messages", ["user_id", "channel", "timestamp"]
    )
    op.create_index("ix_raw_messages_summary_ref", "raw_messages", ["summary_ref_id"])

    op.create_table(
        "memory_summaries",
        sa.Column("summary_id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("summary_tier", sa.String(4), nullable=False),
        sa.Column("source_tier", sa.String(8), nullable=False),
        sa.Column("start_timestamp", sa.BigInteger, nullable=False),
        sa.Column("end_timestamp", sa.BigInteger, nullable=False),
        sa.Column("message_count", sa.Integer, nullable=False),
        sa.Column("source_record_ids", sa.JSON, nullable=False),
        sa.Column("key_points", sa.JSON, nullable=False),
        sa.Column("keywords", sa.JSON, nullable=False),
        sa.Column("keywords_text", sa.Text, nullable=False, server_default=""),
        sa.Column("summary_text", sa.Text, nullable=False, server_default=""),
        sa.Column("dimensions", sa.JSON, nullable=False),
        sa.Column("quality_score", sa.Float, nullable=False, server_default="0"),
        sa.Column("embedding_model", sa.String(200)),
        sa.Column("embedding_content_hash", sa.String(32)),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_memory_summaries_user_tier", "memory_summaries", ["user_id", "summary_tier"])
    op.create_index("ix_memory_summaries_user_end", "memory_summaries", ["user_id", "end_timestamp"])

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("entity_type", sa.String(64), nullable=False),
        sa.Column("entity_id", sa.String(512), nullable=False),
        sa.Column("details", sa.JSON, nullable=False),
    )
    op.create_index("ix_audit_user_at", "audit_log", ["user_id", "at"])
    op.create_index("ix_audit_entity", "audit_log", ["entity_type", "entity_id"])

    op.create_table(
        "locks",
        sa.Column("key", sa.String(256), primary_key=True),
        sa.Column("token", sa.String(512), nullable=False),
        sa.Column("acquired_at", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.BigInteger, nullable=False),
    )

    # Keyword index (SQLite FTS5; the only SQLite-specific piece, see app/core/storage/keyword.py).
    op.execute(
        "CREATE VIRTUAL TABLE keyword_fts USING fts5("
        "body, kind UNINDEXED, ref UNINDEXED, user_id UNINDEXED, tokenize='porter unicode61 remove_diacritics 2')"
    )
    # Messages, by far the largest kind, get their own table keyed by raw_messages.id: no ref
    # mapping, no kind filter per match, half the cost per query at 100k messages.
    op.execute("CREATE VIRTUAL TABLE messages_fts USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
    op.create_table(
        "keyword_refs",
        sa.Column("kind", sa.String(32), primary_key=True),
        sa.Column("ref", sa.String(512), primary_key=True),
        sa.Column("fts_rowid", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("keyword_refs")
    op.execute("DROP TABLE messages_fts")
    op.execute("DROP TABLE keyword_fts")
    for table in ("locks", "audit_log", "memory_summaries", "raw_messages", "users"):
        op.drop_table(table)
