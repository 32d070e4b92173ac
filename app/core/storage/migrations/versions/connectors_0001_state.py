"""Connectors feature: connector_state (cursor, last sync, errors, counts), contacts, contact_identities."""

import sqlalchemy as sa
from alembic import op

revision = "connectors_0001"
down_revision = "0001_core"
branch_labels = ("connectors",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "connector_state",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("interval_minutes", sa.Integer, nullable=False, server_default="15"),
        sa.Column("cursor", sa.Text),
        sa.Column("status", sa.String(16), nullable=False, server_default="never"),
        sa.Column("last_sync_at", sa.BigInteger),
        sa.Column("last_success_at", sa.BigInteger),
        sa.Column("last_error", sa.Text),
        sa.Column("last_error_code", sa.String(64)),
        sa.Column("messages_total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_run_imported", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_run_updated", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_run_deleted", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "contacts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(512), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "contact_identities",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("contact_id", sa.Integer, sa.ForeignKey("contacts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("platform", sa.String(64), nullable=False),
        sa.Column("person", sa.String(512), nullable=False),
        sa.Column("email", sa.String(512)),
    )
    op.create_index(
        "ux_contact_identities_user_platform_person",
        "contact_identities",
        ["user_id", "platform", "person"],
        unique=True,
    )
    op.create_index("ix_contact_identities_contact", "contact_identities", ["contact_id"])


def downgrade() -> None:
    op.drop_index("ix_contact_identities_contact", "contact_identities")
    op.drop_index("ux_contact_identities_user_platform_person", "contact_identities")
    op.drop_table("contact_identities")
    op.drop_table("contacts")
    op.drop_table("connector_state")
