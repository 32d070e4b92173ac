"""LanceDB tables whose files may still hold deleted rows' bytes, until they are compacted."""

import sqlalchemy as sa
from alembic import op

revision = "erase_0001_vector_erasures"
down_revision = "lifecycle_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vector_erasures",
        sa.Column("collection", sa.String(200), primary_key=True),
        sa.Column("recorded_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("vector_erasures")
