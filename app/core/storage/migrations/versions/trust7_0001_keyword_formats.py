"""Keyword entries' body format per kind, and how far a running reindex has come.

Every data dir from before this revision gets no row: its message entries' format is unknown
(0), so the background keyword reindex (app/core/index/keyword_format.py) rewrites them once.
"""

import sqlalchemy as sa
from alembic import op

revision = "trust7_0001_keyword_formats"
down_revision = "corpus_0001_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "keyword_formats",
        sa.Column("kind", sa.String(32), primary_key=True),
        sa.Column("format", sa.Integer, nullable=False),
        sa.Column("done_through", sa.BigInteger, nullable=True),
        sa.Column("target", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("keyword_formats")
