"""Insight settings (focus people, topics, "about me") rendered as the `memory.txt` document."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.errors import InvalidInput

MEMORY_FILE_NAME = "memory.txt"
MAX_ITEMS = 200
MAX_ITEM_CHARS = 200
MAX_ABOUT_ME_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class InsightSettings:
    """What the user told Strata about themselves; it rides along in every RAG retrieval."""

    focus_people: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    about_me: str = ""

    @classmethod
    def create(
        cls,
        focus_people: list[str] | tuple[str, ...] = (),
        topics: list[str] | tuple[str, ...] = (),
        about_me: str = "",
    ) -> InsightSettings:
        """Trim, drop blanks and case-insensitive duplicates (keeping first spelling), enforce limits."""
        about = about_me.strip()
        if len(about) > MAX_ABOUT_ME_CHARS:
            raise InvalidInput(
                f"'about me' is {len(about):,} characters, over the {MAX_ABOUT_ME_CHARS:,} limit",
                hint="shorten it; the knowledge base holds longer documents",
            )
        return cls(
            focus_people=_items(focus_people, "focus people"), topics=_items(topics, "topics"), about_me=about
        )

    def is_empty(self) -> bool:
        return not (self.focus_people or self.topics or self.about_me)

    def to_dict(self) -> dict[str, object]:
        return {"focusPeople": list(self.focus_people), "topics": list(self.topics), "aboutMe": self.about_me}


def _items(values: list[str] | tuple[str, ...], what: str) -> tuple[str, ...]:
    seen: set[str] = set()
    kept: list[str] = []
    for raw in values:
        item = " ".join(str(raw).split())
        if not item or item.casefold() in seen:
            continue
        if len(item) > MAX_ITEM_CHARS:
            raise InvalidInput(f"a {what} entry is over {MAX_ITEM_CHARS} characters: {item[:40]}…")
        seen.add(item.casefold())
        kept.append(item)
    if len(kept) > MAX_ITEMS:
        raise InvalidInput(f"{len(kept)} {what} entries, over the {MAX_ITEMS} limit")
    return tuple(kept)


def render_memory_txt(settings: InsightSettings) -> str:
    """The text of memory.txt: plain sentences, so both keyword and vector search match it."""
    parts = ["Personal context for Strata (from insight settings)."]
    if settings.about_me:
        parts.append(f"About me:\n{settings.about_me}")
    if settings.focus_people:
        people = "\n".join(f"- {person}" for person in settings.focus_people)
        parts.append(f"People I focus on (important contacts):\n{people}")
    if settings.topics:
        topics = "\n".join(f"- {topic}" for topic in settings.topics)
        parts.append(f"Topics I care about:\n{topics}")
    return "\n\n".join(parts) + "\n"
