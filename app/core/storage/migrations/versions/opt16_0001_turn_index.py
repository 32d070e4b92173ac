"""Conversation turns index: (user_id, platform, channel, timestamp) over the messages.

Above the in-memory limit, search reads each candidate's turns: the messages before and after it
in its conversation (same user, platform and channel, in time order; `stored_windows.py`). Over
(user_id, channel, timestamp) every message of the channel on any platform was a step, its row
read to check the platform; a channel name several platforms share (a "general" on Slack and on
Discord) cost a row read per other-platform message passed. Over this index every step is a turn:
5.3 against 7.1 ms CPU a search's turns at 1M (docs/benchmarks.md, `opt16`). ~36 bytes a message
on disk; ~5 s to build at 1M, once, at the upgrade.
"""

from alembic import op

revision = "opt16_0001_turn_index"
down_revision = "scale_1m_0001_people_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_raw_messages_user_platform_channel_timestamp "
        "ON raw_messages (user_id, platform, channel, timestamp)"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_raw_messages_user_platform_channel_timestamp")
