"""The built-in demo conversation, loaded by the first run of the app or the text demo."""

from __future__ import annotations

from app.core.domain import IngestResult
from app.core.jsonl import parse_jsonl
from app.core.paths import resource_path
from app.services.memory_service import MemoryService

DEMO_FILE = ("demo", "conversation.jsonl")


def load_demo(memory: MemoryService) -> IngestResult:
    """Ingest the demo conversation; a no-op after the first time (same message ids)."""
    with resource_path(*DEMO_FILE).open("rb") as handle:
        return memory.ingest(parse_jsonl(handle, default_user=memory.user_id), actor="demo")
