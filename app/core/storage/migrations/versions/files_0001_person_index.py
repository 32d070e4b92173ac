"""Memory files: index raw_messages by (platform, person, timestamp) so one person's page reads only their rows."""

from alembic import op

revision = "files_0001_person_index"
down_revision = "0001_core"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_raw_messages_platform_person_timestamp", "raw_messages", ["platform", "person", "timestamp"]
    )


def downgrade() -> None:
    op.drop_index("ix_raw_messages_platform_person_timestamp", table_name="raw_messages")
