"""Knowledge base: rag_documents, rag_chunks, kb_insight_settings."""

import sqlalchemy as sa
from alembic import op

revision = "kb_0001"
down_revision = "0001_core"
branch_labels = ("kb",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rag_documents",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("file_name", sa.String(512), nullable=False),
        sa.Column("content_type", sa.String(200), nullable=False),
        sa.Column("size_bytes", sa.BigInteger, nullable=False),
        sa.Column("total_chunks", sa.Integer, nullable=False),
        sa.Column("blob_path", sa.String(1024), nullable=False),
        sa.Column("uploaded_at", sa.BigInteger, nullable=False),
        sa.Column("metadata", sa.JSON, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("embedding_model", sa.String(200), nullable=False),
        sa.Column("embedding_dimensions", sa.Integer, nullable=False),
    )
    op.create_index("ux_rag_documents_user_hash", "rag_documents", ["user_id", "content_hash"], unique=True)
    op.create_index("ix_rag_documents_user_uploaded", "rag_documents", ["user_id", "uploaded_at"])
    op.create_table(
        "rag_chunks",
        sa.Column("id", sa.String(48), primary_key=True),
        sa.Column(
            "document_id", sa.String(36), sa.ForeignKey("rag_documents.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("chunk_index", sa.Integer, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("metadata", sa.JSON, nullable=False),
    )
    op.create_index("ux_rag_chunks_document_index", "rag_chunks", ["document_id", "chunk_index"], unique=True)
    op.create_table(
        "kb_insight_settings",
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("focus_people", sa.JSON, nullable=False),
        sa.Column("topics", sa.JSON, nullable=False),
        sa.Column("about_me", sa.Text, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
        sa.Column("document_id", sa.String(36)),
    )


def downgrade() -> None:
    op.drop_table("kb_insight_settings")
    op.drop_index("ux_rag_chunks_document_index", "rag_chunks")
    op.drop_table("rag_chunks")
    op.drop_index("ix_rag_documents_user_uploaded", "rag_documents")
    op.drop_index("ux_rag_documents_user_hash", "rag_documents")
    op.drop_table("rag_documents")
