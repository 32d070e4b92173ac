"""Multi-user: connector_state rows carry their owner (`user_id`); existing rows belong to `local`."""

import sqlalchemy as sa
from alembic import op

revision = "lifecycle_0001"
down_revision = "connectors_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "connector_state", sa.Column("user_id", sa.String(64), nullable=False, server_default="local")
    )
    op.create_index("ix_connector_state_user", "connector_state", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_connector_state_user", "connector_state")
    with op.batch_alter_table("connector_state") as batch:
        batch.drop_column("user_id")
