"""Insights: structured records extracted from messages, ranked by value."""
