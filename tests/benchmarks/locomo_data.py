"""Load LoCoMo conversations as Strata messages and questions (evaluation only; never shipped)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from app.core.clock import datetime_to_ms
from app.core.domain import Attachment, RawMessage

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass(frozen=True)
class Question:
    conversation: str
    text: str
    category: int
    evidence: frozenset[str]  # message ids


def session_time(text: str) -> int:
    """'1:56 pm on 8 May, 2023' → Unix ms."""
    return datetime_to_ms(datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y"))


def normalize_evidence(raw: str) -> list[str]:
    """Fix the malformed ids the dataset README lists: 'D30:05', 'D:11:26', 'D8:6; D9:17'."""
    out = []
    for part in re.split(r"[;,\s]+", raw):
        m = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
        if m:
            out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def load(path: Path = DATA) -> tuple[list[RawMessage], list[Question]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    messages: list[RawMessage] = []
    questions: list[Question] = []
    for sample in data:
        conv_id = sample["sample_id"]
        conv = sample["conversation"]
        known: set[str] = set()
        for key, turns in conv.items():
            if not (key.startswith("session_") and isinstance(turns, list)):
                continue
            start = session_time(conv[f"{key}_date_time"])
            for i, turn in enumerate(turns):
                attachments: tuple[Attachment, ...] = ()
                if turn.get("blip_caption"):
                    urls = turn.get("img_url") or [None]
                    attachments = (
                        Attachment(name=turn["blip_caption"], url=urls[0], content_type="image/jpeg"),
                    )
                dia = turn["dia_id"]
                known.add(dia)
                messages.append(
                    RawMessage(
                        platform="locomo",
                        message_id=f"{conv_id}:{dia}",
                        channel=conv_id,
                        person=turn["speaker"],
                        timestamp=start + i * 1000,
                        content=turn["text"],
                        attachments=attachments,
                    )
                )
        for qa in sample["qa"]:
            if qa["category"] not in CATEGORIES:
                continue  # category 5 (adversarial) names the wrong speaker: excluded from recall
            evidence = {e for raw in qa.get("evidence", []) for e in normalize_evidence(raw) if e in known}
            if evidence:
                questions.append(
                    Question(
                        conv_id, qa["question"], qa["category"], frozenset(f"{conv_id}:{e}" for e in evidence)
                    )
                )
    return messages, questions
