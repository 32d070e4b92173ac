"""Loads the insight quality set (scenarios.txt) and scores a generated insight list against it.

Scoring follows issue 18: per-kind precision and recall, owner accuracy, insights per real item
(duplicates), insights per 100 messages, and the share of closed items detected as closed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

SET_FILE = Path(__file__).with_name("scenarios.txt")
HELDOUT_FILE = Path(__file__).with_name("heldout.txt")
ME = ("alex",)
KINDS = ("decision", "commitment", "deadline", "blocker", "question")
# The extractor's kind names for the label kinds; meetings are not scored.
KIND_OF = {"action_item": "commitment"}
_SCENARIO = re.compile(r"^### (\S+) (.*)$")
_CONTACT = re.compile(r"^@contact (.+?) = (.+)$")
_HEADER = re.compile(r"^=== (\w+) \| (.+?) \| (\d{4}-\d{2}-\d{2})$")
_MESSAGE = re.compile(r"^(\S+) (?:\+(\d+)d )?(\d{2}):(\d{2}) ([^:]+): (.*)$")
_EXPECT = re.compile(r"^(\w+) (\S+)((?: \w+=\S+)*)$")


@dataclass(frozen=True)
class Message:
    message_id: str
    platform: str
    channel: str
    person: str
    timestamp: int
    content: str


@dataclass(frozen=True)
class Item:
    kind: str
    anchors: frozenset[str]
    owner: str | None = None
    state: str = "open"


@dataclass
class Scenario:
    id: str
    title: str
    contacts: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)


@dataclass(frozen=True)
class Found:
    """One generated insight, reduced to what the scoring needs."""

    id: str
    kind: str
    title: str
    evidence: frozenset[str]
    owner: str | None
    closed: bool


@dataclass
class KindScore:
    items: int = 0
    found: int = 0  # items with at least one insight
    insights: int = 0  # insights of this kind that matched an item
    false: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        total = self.insights + len(self.false)
        return self.insights / total if total else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.items if self.items else 1.0


@dataclass
class Report:
    kinds: dict[str, KindScore]
    messages: int
    insights: int
    owner_ok: int = 0
    owner_n: int = 0
    closed_ok: int = 0
    closed_n: int = 0
    wrongly_closed: list[str] = field(default_factory=list)
    not_closed: list[str] = field(default_factory=list)
    owner_wrong: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)

    @property
    def per_item(self) -> float:
        found = sum(k.found for k in self.kinds.values())
        return sum(k.insights for k in self.kinds.values()) / found if found else 0.0

    @property
    def precision(self) -> float:
        good = sum(k.insights for k in self.kinds.values())
        bad = sum(len(k.false) for k in self.kinds.values())
        return good / (good + bad) if good + bad else 1.0

    def lines(self) -> list[str]:
        out = [f"{'kind':<11} {'P':>5} {'R':>5} {'items':>5} {'found':>5} {'ins':>4} {'fp':>3}"]
        for name, k in self.kinds.items():
            out.append(
                f"{name:<11} {k.precision:5.2f} {k.recall:5.2f} {k.items:5} {k.found:5} {k.insights:4}"
                f" {len(k.false):3}"
            )
        owner = self.owner_ok / self.owner_n if self.owner_n else 1.0
        closed = self.closed_ok / self.closed_n if self.closed_n else 1.0
        out.append(
            f"overall precision {self.precision:.2f};"
            f" owner accuracy {owner:.2f} ({self.owner_ok}/{self.owner_n});"
            f" insights per real item {self.per_item:.2f}; closed detected {closed:.2f}"
            f" ({self.closed_ok}/{self.closed_n}); insights per 100 messages"
            f" {100 * self.insights / max(self.messages, 1):.1f} ({self.insights}/{self.messages})"
        )
        return out


def load(path: Path = SET_FILE) -> list[Scenario]:
    scenarios: list[Scenario] = []
    day = datetime(2000, 1, 1, tzinfo=UTC)
    platform = channel = ""
    in_expect = False
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.rstrip()
        if not line or (line.startswith("#") and not line.startswith("###")):
            continue
        if m := _SCENARIO.match(line):
            scenarios.append(Scenario(m.group(1), m.group(2)))
            in_expect = False
        elif m := _CONTACT.match(line):
            pairs = [tuple(p.strip().split(":", 1)) for p in m.group(2).split(",")]
            scenarios[-1].contacts.append((m.group(1), [(a, b) for a, b in pairs]))
        elif m := _HEADER.match(line):
            platform, channel = m.group(1), m.group(2)
            day = datetime.fromisoformat(m.group(3)).replace(tzinfo=UTC)
        elif line == "--- expect":
            in_expect = True
        elif in_expect:
            m = _EXPECT.match(line)
            if not m or m.group(1) not in KINDS:
                raise ValueError(f"bad label line: {line!r}")
            opts = dict(kv.split("=", 1) for kv in m.group(3).split())
            scenarios[-1].items.append(
                Item(
                    m.group(1), frozenset(m.group(2).split("|")), opts.get("owner"), opts.get("state", "open")
                )
            )
        else:
            m = _MESSAGE.match(line)
            if not m:
                raise ValueError(f"bad message line: {line!r}")
            at = day + timedelta(days=int(m.group(2) or 0), hours=int(m.group(3)), minutes=int(m.group(4)))
            scenarios[-1].messages.append(
                Message(
                    m.group(1), platform, channel, m.group(5).strip(), int(at.timestamp() * 1000), m.group(6)
                )
            )
    return scenarios


def names_of(scenarios: Iterable[Scenario]) -> dict[str, set[str]]:
    """Every name a person goes by (from @contact lines), keyed by each of those names, casefolded."""
    out: dict[str, set[str]] = {}
    for s in scenarios:
        for display, pairs in s.contacts:
            names = {display.casefold(), *(p.casefold() for _, p in pairs)}
            for n in names:
                out.setdefault(n, set()).update(names)
    return out


def score(scenarios: Sequence[Scenario], found: Sequence[Found]) -> Report:
    """Greedy: an insight belongs to the labelled item whose anchors its evidence touches (same kind)."""
    aliases = names_of(scenarios)
    kinds = {k: KindScore() for k in KINDS}
    report = Report(kinds, sum(len(s.messages) for s in scenarios), 0)
    scored = [f for f in found if KIND_OF.get(f.kind, f.kind) in KINDS]
    report.insights = len(scored)
    used: set[str] = set()
    for s in scenarios:
        for item in s.items:
            k = kinds[item.kind]
            k.items += 1
            hits = [
                f for f in scored if KIND_OF.get(f.kind, f.kind) == item.kind and f.evidence & item.anchors
            ]
            if item.owner:
                # Two tasks in one message: the one with the right owner is this item's.
                want = aliases.get(item.owner, {item.owner})
                right = [f for f in hits if (f.owner or "").casefold() in want]
                hits = right or [f for f in hits if f.id not in used][:1]
            hits = [f for f in hits if f.id not in used]
            if not hits:
                k.misses.append(f"{s.id} {item.kind} {sorted(item.anchors)[0]}")
                continue
            k.found += 1
            k.insights += len(hits)
            used.update(f.id for f in hits)
            if len(hits) > 1:
                report.duplicates.append(f"{s.id} {item.kind}: " + " | ".join(f.title for f in hits))
            first = hits[0]
            if item.owner:
                report.owner_n += 1
                ok = (first.owner or "").casefold() in aliases.get(item.owner, {item.owner})
                report.owner_ok += ok
                if not ok:
                    report.owner_wrong.append(f"{s.id} want {item.owner} got {first.owner}: {first.title}")
            if item.state == "done":
                report.closed_n += 1
                report.closed_ok += all(f.closed for f in hits)
                if not all(f.closed for f in hits):
                    report.not_closed.append(f"{s.id} {first.title}")
            elif any(f.closed for f in hits):
                report.wrongly_closed.append(f"{s.id} {first.title}")
    for f in scored:
        if f.id not in used:
            kinds[KIND_OF.get(f.kind, f.kind)].false.append(f"{sorted(f.evidence)[0]} {f.title}")
    return report
