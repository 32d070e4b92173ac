"""Which pages exist and what each is called: people, chats, channels, projects, notes.

Names are derived, not stored: the same archive always gives the same file names, so a page a
user edited is found again by the next refresh. When two people (or conversations) would share
a name, the later one in a fixed order gets its platform (then a short hash) appended.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.core.domain import SearchFilters
from app.core.memory_files.paths import slug
from app.services.memory_files.snapshot import Directory, Key

# Export/connector chat types that are one-to-one conversations (Telegram names them so).
PRIVATE_CHAT_TYPES = {"personal_chat", "bot_chat", "private", "dm", "im"}
NOTES_PAGE = "notes/remembered.md"


@dataclass(frozen=True, slots=True)
class PersonPage:
    path: str
    name: str
    identities: tuple[Key, ...]  # (platform, person)
    contact_id: int | None = None


@dataclass(frozen=True, slots=True)
class ConversationPage:
    path: str
    platform: str
    channel: str
    kind: str  # "chat" | "channel"


@dataclass(frozen=True, slots=True)
class ProjectPage:
    path: str
    title: str
    keywords: tuple[str, ...]
    conversations: tuple[Key, ...]
    unknown_channels: tuple[str, ...] = ()
    from_file: bool = False  # the user's own file asked for it (keywords in its front matter)


@dataclass(frozen=True, slots=True)
class ContactInfo:
    """A merged contact as the identity directory holds it (values copied, no feature types here)."""

    id: int
    name: str
    identities: tuple[Key, ...]


@dataclass(frozen=True, slots=True)
class ProjectSpec:
    title: str
    keywords: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    path: str | None = None  # set when the project comes from its own file's front matter


@dataclass
class Plan:
    people: list[PersonPage]
    conversations: list[ConversationPage]
    projects: list[ProjectPage]

    def __post_init__(self) -> None:
        self.person_of: dict[Key, PersonPage] = {i: p for p in self.people for i in p.identities}
        self.conversation_of: dict[Key, ConversationPage] = {
            (c.platform, c.channel): c for c in self.conversations
        }
        self.by_path: dict[str, PersonPage | ConversationPage | ProjectPage] = {
            page.path: page for page in (*self.people, *self.conversations, *self.projects)
        }

    def paths(self) -> list[str]:
        return [*self.by_path, NOTES_PAGE]


def page_matches(page: PersonPage | ConversationPage | ProjectPage | None, filters: SearchFilters) -> bool:
    """Whether a page's subject meets a search filter's person, channel and platform parts.

    A person page is about its identities, a conversation page about its conversation, a project
    page about its conversations. A part the page has no field for (a person on a conversation
    page, a channel on a person page) or a page outside the plan (notes, the user's own files)
    does not meet it: the filter asks for something the page cannot show to be about.
    """
    if not (filters.persons or filters.channels or filters.platforms):
        return True
    if isinstance(page, PersonPage):
        keys: Sequence[Key] = page.identities
        persons = {p for _, p in keys} | {page.name}
        channels: set[str] = set()
    elif isinstance(page, ConversationPage):
        keys, persons, channels = ((page.platform, page.channel),), set(), {page.channel}
    elif isinstance(page, ProjectPage):
        keys, persons, channels = page.conversations, set(), {c for _, c in page.conversations}
    else:
        return False
    return (
        (not filters.persons or bool(persons & set(filters.persons)))
        and (not filters.channels or bool(channels & set(filters.channels)))
        and (not filters.platforms or any(platform in filters.platforms for platform, _ in keys))
    )


def build_plan(
    directory: Directory, contacts: Sequence[ContactInfo], me: Iterable[str], projects: Sequence[ProjectSpec]
) -> Plan:
    mine = {n.casefold().lstrip("@") for n in me if n.strip()}
    taken: set[str] = set()
    people: list[PersonPage] = []
    merged: set[Key] = set()
    for contact in sorted(contacts, key=lambda c: (c.name.casefold(), c.id)):
        idents = tuple(i for i in contact.identities if i in directory.people)
        merged.update(contact.identities)
        if not idents or _is_me(contact.name, idents, mine):
            continue
        people.append(
            PersonPage(_unique("people", contact.name, idents[0][0], taken), contact.name, idents, contact.id)
        )
    singles = sorted((k for k in directory.people if k not in merged), key=lambda k: (k[1].casefold(), k[0]))
    for platform, person in singles:
        if _is_me(person, ((platform, person),), mine):
            continue
        people.append(PersonPage(_unique("people", person, platform, taken), person, ((platform, person),)))
    conversations: list[ConversationPage] = []
    for (platform, channel), (_, persons, chat_type) in sorted(directory.conversations.items()):
        kind = "chat" if _is_chat(platform, channel, persons, chat_type) else "channel"
        folder = "chats" if kind == "chat" else "channels"
        path = _unique(folder, f"{platform}-{channel}", platform, taken)
        conversations.append(ConversationPage(path, platform, channel, kind))
    pages = [_project(spec, directory, taken) for spec in projects]
    return Plan(people, conversations, pages)


def _project(spec: ProjectSpec, directory: Directory, taken: set[str]) -> ProjectPage:
    found: list[Key] = []
    unknown: list[str] = []
    for name in spec.channels:
        platform, _, channel = name.partition("/") if "/" in name else ("", "", name)
        channel = channel.lstrip("#").strip()
        hits = [
            k
            for k in directory.conversations
            if k[1].lstrip("#").casefold() == channel.casefold()
            and (not platform or k[0] == platform.strip())
        ]
        found.extend(hits)
        if not hits:
            unknown.append(name)
    path = spec.path or _unique("projects", spec.title, "", taken)
    taken.add(path)
    conversations = tuple(dict.fromkeys(found))
    return ProjectPage(path, spec.title, spec.keywords, conversations, tuple(unknown), spec.path is not None)


def _is_me(name: str, identities: Sequence[Key], mine: set[str]) -> bool:
    return bool(mine) and (
        name.casefold() in mine or any(p.casefold().lstrip("@") in mine for _, p in identities)
    )


def _is_chat(platform: str, channel: str, persons: int, chat_type: str) -> bool:
    """Telegram says so (`chat_type`); Slack DM ids start with D; on messengers (WhatsApp,
    Telegram without a type…) two or fewer voices make a chat. Slack and Discord rooms stay
    channels however few people wrote in them."""
    if chat_type:
        return chat_type.casefold() in PRIVATE_CHAT_TYPES
    if platform == "slack":
        return len(channel) > 8 and channel.startswith("D") and channel.isalnum()
    if platform == "discord":
        return False
    return persons <= 2


def _unique(folder: str, name: str, platform: str, taken: set[str]) -> str:
    base = slug(name)
    for candidate in (base, f"{base}-{slug(platform)}" if platform else None):
        if candidate and f"{folder}/{candidate}.md" not in taken:
            taken.add(f"{folder}/{candidate}.md")
            return f"{folder}/{candidate}.md"
    digest = hashlib.sha1(f"{platform}\x1f{name}".encode()).hexdigest()[:6]
    path = f"{folder}/{base}-{digest}.md"
    taken.add(path)
    return path
