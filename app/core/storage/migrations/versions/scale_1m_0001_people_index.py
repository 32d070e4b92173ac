"""People and places index: (user_id, platform, channel, person) over the messages, covering.

The people directory (query understanding), the search screen's facets and the platform counts
group every message of a user by these columns. Without an index that covers them SQLite read
the whole table (content included) and sorted it: 3.3-3.5 s a query at 1M messages, paid by the
first search after start and again by a search every 30 s when the directory refreshes. Over
this narrow index the same queries take 0.05-0.2 s of CPU (docs/benchmarks.md, "Start to
interactive window at 1M"). It costs ~40 bytes a message on disk.
"""

from alembic import op

revision = "scale_1m_0001_people_index"
down_revision = "0001_core"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_raw_messages_user_platform_channel_person "
        "ON raw_messages (user_id, platform, channel, person)"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_raw_messages_user_platform_channel_person")
