"""A conversation window's lift goes to the turn of the window that carries it, not to every turn in it.

A candidate is scored with its conversation window (context.py): the turns around it lend it
their meaning and words, so a one-line reply ("Yes, last Tuesday") can rank by the question it
answers. The same window also lifts the writer's *other* turns near the one that matches: in a
two-person chat, the turns two apart are the same person's, and all of them rose together
("Melanie: That's great!" two turns after "Melanie: I signed up for a pottery class"). On LoCoMo,
111 of the top-10 non-evidence hits of missed multi-hop questions sat within two turns of an
evidence turn. Here a candidate lifted by its window gives that lift to the same writer's turn of
the window that matches the query best on its own, and keeps only its own evidence. Replies by
the *other* person keep their lift: that is the case windows are for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# A window lifts a candidate when it adds at least this much relevance to the candidate's own.
LIFT_MARGIN = 0.02


def window_moves(
    relevance: Mapping[str, float],
    own: Mapping[str, float],
    neighbours: Mapping[str, tuple[str, ...]],
    cosines: Mapping[str, float],
    writer: Callable[[str], Any],
) -> dict[str, str]:
    """For each candidate lifted by its window (`relevance` against `own`, its relevance without
    the window), the same writer's turn of that window with the higher own cosine, if any.

    `cosines`: the own cosine of candidates and their neighbours; `writer(key)`: who wrote a turn
    (None when unknown)."""
    moves: dict[str, str] = {}
    for key, around in neighbours.items():
        full, alone, mine = relevance.get(key), own.get(key), cosines.get(key)
        if full is None or alone is None or mine is None or full - alone < LIFT_MARGIN:
            continue
        person = writer(key)
        if person is None:
            continue
        import os
        margin = float(os.environ.get("WC_MARGIN", "0"))
        dom = float(os.environ.get("WC_DOM", "0"))
        if full - alone < dom * full:
            continue
        best, best_cos = key, mine + margin
        for n in around:
            c = cosines.get(n)
            if c is not None and c > best_cos and writer(n) == person:
                best, best_cos = n, c
        if best != key:
            moves[key] = best
    return moves


def moved(values: Mapping[str, float], moves: Mapping[str, str], own: Mapping[str, float]) -> dict[str, float]:
    """`values` with each moved candidate's value given to its turn (which keeps the higher of the
    two; several windows giving to one turn count once) and the candidate left with its own
    value (or a lift given to it by another window)."""
    if not moves:
        return dict(values)
    out = dict(values)
    given: dict[str, float] = {}
    for key, best in moves.items():
        if key in values:
            given[best] = max(given.get(best, 0.0), values[key])
    import os
    for key in moves if not os.environ.get("WC_KEEP") else ():
        if key in values:
            out[key] = max(min(values[key], own.get(key, values[key])), given.get(key, 0.0))
    for best, lift in given.items():
        out[best] = max(values.get(best, 0.0), lift)
    return out
