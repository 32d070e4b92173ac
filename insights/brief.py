"""The "open loops" brief: my open tasks, what I wait on from others, questions put to me unanswered."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from insights.model import InsightKind
from insights.ranking import RankedInsight


@dataclass(frozen=True, slots=True)
class OpenLoops:
    my_actions: tuple[RankedInsight, ...]
    waiting_on: tuple[RankedInsight, ...]
    questions_for_me: tuple[RankedInsight, ...]
    identities: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not (self.my_actions or self.waiting_on or self.questions_for_me)

    def to_dict(self) -> dict[str, Any]:
        return {
            "identities": list(self.identities),
            "myActions": [r.to_dict(full=False) for r in self.my_actions],
            "waitingOn": [r.to_dict(full=False) for r in self.waiting_on],
            "questionsForMe": [r.to_dict(full=False) for r in self.questions_for_me],
        }


def open_loops(ranked: Iterable[RankedInsight], identities: Sequence[str], limit: int = 20) -> OpenLoops:
    """Each list ordered by value score (best first). `identities` are the names "me" goes by."""
    me = {n.casefold().lstrip("@") for n in identities if n.strip()}

    def mine(name: str | None) -> bool:
        return name is not None and name.casefold().lstrip("@") in me

    mine_list: list[RankedInsight] = []
    waiting: list[RankedInsight] = []
    asked: list[RankedInsight] = []
    for r in ranked:
        d = r.insight.draft
        if r.insight.lifecycle != "open":
            continue  # done, dismissed or snoozed: not a loop to close today
        if d.kind is InsightKind.ACTION_ITEM:
            if mine(d.owner):
                mine_list.append(r)
            elif mine(d.author):
                waiting.append(r)  # I asked someone (or anyone) to do it and it is not done
        elif d.kind is InsightKind.QUESTION:
            if any(mine(a) for a in d.addressed_to):
                asked.append(r)
            elif mine(d.author):
                waiting.append(r)  # my own question nobody answered yet

    def top(items: list[RankedInsight]) -> tuple[RankedInsight, ...]:
        return tuple(sorted(items, key=lambda r: (-r.value.total, -r.score, r.id))[:limit])

    return OpenLoops(top(mine_list), top(waiting), top(asked), tuple(sorted(me)))
