"""Shared constants for forgetting tests."""

from __future__ import annotations

# 2026-03-02 00:00:00 UTC, a Monday.
NOW = 1_772_409_600_000
