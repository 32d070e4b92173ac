"""Indexed corpus: keyword_refs carries user_id; index_state records the model search uses."""

import sqlalchemy as sa
from alembic import op

revision = "corpus_0001_index"
down_revision = "0001_core"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("keyword_refs") as batch:
        batch.add_column(sa.Column("user_id", sa.String(64), nullable=True))
    # The FTS row already knows its user: copy it over for rows indexed before this revision.
    op.execute(
        "UPDATE keyword_refs SET user_id = "
        "(SELECT keyword_fts.user_id FROM keyword_fts WHERE keyword_fts.rowid = keyword_refs.fts_rowid)"
    )
    op.create_index("ix_keyword_refs_user_kind", "keyword_refs", ["user_id", "kind"])
    op.create_table(
        "index_state",
        sa.Column("name", sa.String(32), primary_key=True),
        # The model whose vectors search uses; a re-embed to another model switches it when complete.
        sa.Column("active_model", sa.String(200), nullable=False),
        sa.Column("active_dimensions", sa.Integer, nullable=False),
        # The embedding settings that build that model again (the settings file may name another).
        sa.Column("active_embedding", sa.JSON, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("index_state")
    op.drop_index("ix_keyword_refs_user_kind", "keyword_refs")
    with op.batch_alter_table("keyword_refs") as batch:
        batch.drop_column("user_id")
