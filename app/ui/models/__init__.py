"""Thin Qt item models over plain rows (frozen dataclasses or dicts), testable headless."""
