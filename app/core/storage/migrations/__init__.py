"""Alembic migrations for the Strata database (run programmatically by app.core.storage.migrate)."""
