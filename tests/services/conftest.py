"""Service tests reuse the connector tests' recording retry policy."""

from tests.connectors.conftest import retry, sleeps

__all__ = ["retry", "sleeps"]
