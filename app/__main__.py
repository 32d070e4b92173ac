"""`python -m app` runs the strata command."""

from app.cli.main import run

run()
