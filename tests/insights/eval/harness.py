"""Loads the labelled chat set and scores an extractor on it (precision / recall per kind)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from insights.model import ChatMessage, InsightDraft, InsightKind, InsightStatus

EVAL_FILE = Path(__file__).with_name("conversations.txt")
ME = ("alex",)
_HEADER = re.compile(r"^=== (\w+) \| (.+?) \| (\d{4}-\d{2}-\d{2})$")
_MESSAGE = re.compile(r"^(\S+) (?:\+(\d+)d )?(\d{2}):(\d{2}) ([^:]+): (.*)$")
_EXPECT = re.compile(r"^(\w+) (\S+)((?: \w+=\S+)*)$")


@dataclass(frozen=True)
class Expected:
    kind: str
    anchors: tuple[str, ...]
    owner: str | None = None  # "-" in the file: explicitly nobody
    owner_given: bool = False
    due: date | None = None


@dataclass
class Conversation:
    platform: str
    channel: str
    messages: list[ChatMessage] = field(default_factory=list)
    expected: list[Expected] = field(default_factory=list)


@dataclass
class KindScore:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    owner_ok: int = 0
    owner_n: int = 0
    due_ok: int = 0
    due_n: int = 0
    misses: list[str] = field(default_factory=list)
    false: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def load(path: Path = EVAL_FILE) -> list[Conversation]:
    convs: list[Conversation] = []
    day = datetime(2000, 1, 1, tzinfo=UTC)
    in_expect = False
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        if m := _HEADER.match(line):
            day = datetime.fromisoformat(m.group(3)).replace(tzinfo=UTC)
            convs.append(Conversation(platform=m.group(1), channel=m.group(2)))
            in_expect = False
        elif line == "--- expect":
            in_expect = True
        elif in_expect:
            m = _EXPECT.match(line)
            if not m:
                raise ValueError(f"bad label line: {line!r}")
            opts = dict(kv.split("=", 1) for kv in m.group(3).split())
            owner = opts.get("owner")
            convs[-1].expected.append(
                Expected(
                    kind=m.group(1),
                    anchors=tuple(m.group(2).split("|")),
                    owner=None if owner in (None, "-") else owner.casefold(),
                    owner_given=owner is not None,
                    due=date.fromisoformat(opts["due"]) if "due" in opts else None,
                )
            )
        else:
            m = _MESSAGE.match(line)
            if not m:
                raise ValueError(f"bad message line: {line!r}")
            at = day + timedelta(days=int(m.group(2) or 0), hours=int(m.group(3)), minutes=int(m.group(4)))
            c = convs[-1]
            c.messages.append(
                ChatMessage(
                    message_id=m.group(1), person=m.group(5).strip(), timestamp=int(at.timestamp() * 1000),
                    content=m.group(6), platform=c.platform, channel=c.channel,
                )
            )  # fmt: skip
    return convs


def evaluate(
    extract: Callable[[Sequence[ChatMessage]], list[InsightDraft]], convs: list[Conversation] | None = None
) -> dict[str, KindScore]:
    """Greedy matching per conversation: same kind, evidence touching an accepted anchor."""
    scores = {k.value: KindScore() for k in InsightKind}
    for conv in convs or load():
        drafts = [
            d for d in extract(conv.messages)
            if not (d.kind is InsightKind.QUESTION and d.status is InsightStatus.RESOLVED)
        ]  # fmt: skip
        used: set[int] = set()
        for exp in conv.expected:
            score = scores[exp.kind]
            candidates = [
                (i, d) for i, d in enumerate(drafts)
                if i not in used and d.kind.value == exp.kind and set(d.evidence) & set(exp.anchors)
            ]  # fmt: skip
            if not candidates:
                score.fn += 1
                score.misses.append(f"{exp.anchors[0]} {exp.kind}")
                continue
            # Prefer the candidate with the right owner when one message holds two tasks.
            candidates.sort(key=lambda c: (c[1].owner or "").casefold() != (exp.owner or ""))
            i, d = candidates[0]
            used.add(i)
            score.tp += 1
            if exp.owner_given:
                score.owner_n += 1
                score.owner_ok += (d.owner or "").casefold() == (exp.owner or "")
            if exp.due is not None:
                score.due_n += 1
                got = datetime.fromtimestamp(d.due_at / 1000, tz=UTC).date() if d.due_at else None
                score.due_ok += got == exp.due
        for i, d in enumerate(drafts):
            if i not in used:
                scores[d.kind.value].fp += 1
                scores[d.kind.value].false.append(f"{d.evidence[0]} {d.title}")
    return scores


def overall(scores: dict[str, KindScore]) -> KindScore:
    total = KindScore()
    for s in scores.values():
        total.tp += s.tp
        total.fp += s.fp
        total.fn += s.fn
    return total


def message_count(convs: list[Conversation]) -> int:
    return sum(len(c.messages) for c in convs)
