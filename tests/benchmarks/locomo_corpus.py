"""A large chat corpus with a real conversational vocabulary, grown from LoCoMo's turns.

The small-vocabulary corpus in `synthetic.py` makes every query word match 10-20 % of all
messages, which no real archive does. Here a word-bigram model trained on LoCoMo's 2,760 real
turns generates any number of messages: the word frequencies follow the real (Zipf-like)
distribution, message lengths follow the real turn lengths, and LoCoMo's own questions serve as
queries. The text is word salad at sentence level; it is meant for timing, not for recall.
"""

from __future__ import annotations

import random
from collections import defaultdict

from app.core.domain import RawMessage
from tests.benchmarks import locomo_data

_START = "\x02"


class BigramChat:
    def __init__(self, turns: list[str], seed: int) -> None:
        self.rng = random.Random(seed)
        self.next_words: dict[str, list[str]] = defaultdict(list)
        self.lengths: list[int] = []
        for turn in turns:
            words = turn.split()
            if not words:
                continue
            self.lengths.append(len(words))
            for prev, word in zip([_START, *words], words, strict=False):
                self.next_words[prev].append(word)

    def message(self) -> str:
        length = self.rng.choice(self.lengths)
        words: list[str] = []
        prev = _START
        while len(words) < length:
            choices = self.next_words.get(prev) or self.next_words[_START]
            prev = self.rng.choice(choices)
            words.append(prev)
        return " ".join(words)


def available() -> bool:
    return locomo_data.DATA.exists()


def messages(n: int, seed: int = 11, start_ms: int = 1_672_531_200_000) -> list[RawMessage]:
    real, _ = locomo_data.load()
    model = BigramChat([m.content for m in real], seed)
    people = sorted({m.person for m in real})
    channels = [f"{kind}-{i}" for kind in ("dm", "group", "team") for i in range(12)]
    rng = random.Random(seed)
    out: list[RawMessage] = []
    ts = start_ms
    for i in range(n):
        ts += rng.randint(5_000, 900_000)
        out.append(
            RawMessage(
                platform=rng.choice(["slack", "discord", "telegram"]),
                message_id=f"locomo-gen-{seed}-{i}",
                channel=rng.choice(channels),
                person=rng.choice(people),
                timestamp=ts,
                content=model.message(),
            )
        )
    return out


def queries(count: int, seed: int = 5) -> list[str]:
    """LoCoMo's own questions (categories 1-4), a reproducible sample of distinct texts."""
    _, questions = locomo_data.load()
    texts = sorted({q.text for q in questions})
    random.Random(seed).shuffle(texts)
    return texts[:count]
