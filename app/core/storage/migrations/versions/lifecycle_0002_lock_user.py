"""Multi-user: locks carry the user they serialize (`user_id`), filled from the per-user lock keys."""

import sqlalchemy as sa
from alembic import op

revision = "lifecycle_0002"
down_revision = "0001_core"
branch_labels = None
depends_on = None

PREFIX = "memory_forgetting:"


def upgrade() -> None:
    op.add_column("locks", sa.Column("user_id", sa.String(64), nullable=False, server_default="local"))
    op.execute(
        sa.text("UPDATE locks SET user_id = substr(key, :n) WHERE key LIKE :p").bindparams(
            n=len(PREFIX) + 1, p=PREFIX + "%"
        )
    )


def downgrade() -> None:
    with op.batch_alter_table("locks") as batch:
        batch.drop_column("user_id")
