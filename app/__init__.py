"""Strata: local-first personal memory."""

__version__ = "0.1.0"
