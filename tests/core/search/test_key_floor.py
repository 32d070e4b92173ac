"""Sentence keys order hits, but the relevance floor judges a message by its own vector."""

from __future__ import annotations

from types import SimpleNamespace

from app.core.index.legs import LegHit
from app.core.search.messages import SearchConfig
from app.core.search.people import Mentions
from app.core.search.ranking import rank_messages


def _row(key: str, content: str) -> SimpleNamespace:
    return SimpleNamespace(
        id=int(key), user_id="u", platform="slack", channel="ops", person="ana", timestamp=1000, content=content
    )


def _rank(floor_vector: list[LegHit] | None, *, loose: bool = False) -> list[tuple[str, float]]:
    rows = {"1": _row("1", "Rolled back. The migration locked the table."), "2": _row("2", "lunch at noon")}
    ranked = rank_messages(
        query_text="penguin colonies",
        # As the key leg left them: message 1 lifted to 0.6 by one of its sentences.
        vector=[LegHit("1", 1, 0.6), LegHit("2", 2, 0.1)],
        keyword=[],
        rows=rows,
        cosines={"1": 0.12, "2": 0.1},
        windows_for=None,
        passes=lambda row: True,
        mentions=Mentions.none(),
        now_ms=2000,
        config=SearchConfig(),
        limit=10,
        loose=loose,
        to_hit=lambda row, score, relevance: (str(row.id), relevance),
        floor_vector=floor_vector,
    )
    return ranked.hits  # type: ignore[return-value]


def test_a_key_lift_alone_does_not_clear_the_floor() -> None:
    assert [key for key, _ in _rank(None)] == ["1"]  # judged on the lifted cosine: shown
    own = [LegHit("1", 1, 0.12), LegHit("2", 2, 0.1)]
    assert _rank(own) == []  # judged on its own vector: no close match
    loose = _rank(own, loose=True)
    assert [key for key, _ in loose] == ["1", "2"]  # the key still orders the nearest ones
    assert loose[0][1] < 0.3  # and the relevance shown is the message's own evidence
