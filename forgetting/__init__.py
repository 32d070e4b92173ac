"""Forgetting engine: scoring, tiers, grouping, summaries and the per-user lock."""
