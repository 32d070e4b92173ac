"""Synthetic chat messages for benchmarks: varied, realistic-looking, reproducible."""

from __future__ import annotations

import random

from app.core.domain import RawMessage

PEOPLE = ["anna", "ben", "chloe", "dev", "maria", "omar", "kai", "lena", "tom", "sara", "yuki", "li"]
CHANNELS = ["general", "engineering", "launch", "finance", "design", "support", "random", "ops"]
PLATFORMS = ["slack", "discord", "telegram"]
SUBJECTS = [
    "the deploy",
    "the login bug",
    "the Q3 budget",
    "the launch plan",
    "the onboarding flow",
    "the API migration",
    "the design review",
    "the customer call",
    "the release notes",
    "the pricing page",
    "the database backup",
    "the mobile app",
    "the hiring plan",
    "the offsite",
    "the security audit",
]
VERBS = [
    "finished",
    "started",
    "reviewed",
    "blocked",
    "postponed",
    "shipped",
    "rewrote",
    "tested",
    "discussed",
    "approved",
    "rolled back",
    "documented",
]
TAILS = [
    "before lunch",
    "yesterday evening",
    "with the new checklist",
    "after the standup",
    "for the client",
    "because of the outage",
    "ahead of Friday",
    "and it looks good",
    "but we need more tests",
    "can someone double-check?",
    "see the doc for details",
    "let's sync tomorrow",
]
OPENERS = ["", "FYI ", "Quick update: ", "Heads up, ", "So ", "Ok ", "Hey team, ", "btw "]


def message_text(rng: random.Random) -> str:
    person = rng.choice(PEOPLE)
    parts = [
        rng.choice(OPENERS),
        f"{person} " if rng.random() < 0.3 else "I ",
        rng.choice(VERBS),
        " ",
        rng.choice(SUBJECTS),
        " ",
        rng.choice(TAILS),
    ]
    if rng.random() < 0.35:
        parts += [
            ". ",
            rng.choice(OPENERS).strip().capitalize() or "Also",
            " ",
            rng.choice(SUBJECTS),
            " is ",
            rng.choice(["on track", "at risk", "done", "waiting on legal", "ready for review"]),
        ]
    if rng.random() < 0.2:
        parts.append(f" (ticket #{rng.randint(100, 9999)})")
    return "".join(parts).strip()


def messages(n: int, seed: int = 7, start_ms: int = 1_735_689_600_000) -> list[RawMessage]:
    rng = random.Random(seed)
    out = []
    ts = start_ms
    for i in range(n):
        ts += rng.randint(5_000, 600_000)
        out.append(
            RawMessage(
                platform=rng.choice(PLATFORMS),
                message_id=f"bench-{seed}-{i}",
                channel=rng.choice(CHANNELS),
                person=rng.choice(PEOPLE),
                timestamp=ts,
                content=message_text(rng),
            )
        )
    return out


QUERIES = [
    "who reviewed the security audit",
    "login bug status",
    "budget approved for Q3",
    "when do we ship the mobile app",
    "deploy rolled back because of the outage",
    "pricing page ready for review",
    "offsite plans",
    "database backup tested",
    "hiring plan waiting on legal",
    "API migration blocked last week",
    "release notes documented",
    "customer call follow up",
    "onboarding flow shipped",
    "design review tomorrow",
]
