"""Insight extractors: offline rules, and an optional LLM that falls back to them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from insights.model import ChatMessage, InsightDraft


class Extractor(Protocol):
    """Turns one platform + channel group of messages (oldest first) into insight drafts."""

    name: str

    def extract(self, messages: Sequence[ChatMessage]) -> list[InsightDraft]: ...
