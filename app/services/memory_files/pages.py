"""The body of each kind of page, from a snapshot, the page plan and the insights as `Item`s."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from app.services.memory_files.plan import ConversationPage, PersonPage, Plan, ProjectPage
from app.services.memory_files.render import Item, Renderer, messages, section, span_text, topics
from app.services.memory_files.snapshot import Line, Snapshot, Span, SummaryLine
from forgetting.text import stopwords, tokens

RECENT_DECISIONS = 10
OPEN_ITEMS = 15
RECENT_LINES = 10
HASH_PLATFORMS = {"slack", "discord"}
LOOP_KINDS = {"action_item", "deadline", "blocker", "question"}


@dataclass(frozen=True, slots=True)
class Page:
    path: str
    title: str
    page_type: str
    body: str
    aliases: tuple[str, ...] = ()
    extra_front_matter: str = ""
    append_if_missing: bool = False

    def new_file(self, renderer: Renderer) -> str:
        return renderer.document(
            self.title, self.page_type, self.body, aliases=self.aliases, extra=self.extra_front_matter
        )


class PageBuilder:
    def __init__(self, plan: Plan, snap: Snapshot, items: Sequence[Item], renderer: Renderer) -> None:
        self.plan = plan
        self.snap = snap
        self.items = items
        self.r = renderer
        # (platform, person) → [(conversation, their span there)], built once for every person page.
        self.by_identity: dict[tuple[str, str], list[tuple[tuple[str, str], Span]]] = defaultdict(list)
        for (platform, channel), people in snap.talk.items():
            for person, span in people.items():
                self.by_identity[(platform, person)].append(((platform, channel), span))
        # Insights and summaries indexed once, so each page looks at its own few, not all of them.
        self.by_name: dict[str, list[Item]] = defaultdict(list)
        self.by_conversation: dict[tuple[str, str], list[Item]] = defaultdict(list)
        for item in items:
            self.by_conversation[(item.platform, item.channel)].append(item)
            for name in {_key(n) for n in (item.owner, item.author, *item.addressed_to) if n}:
                self.by_name[name].append(item)
        self.summaries_of_person: dict[tuple[str, str], list[SummaryLine]] = defaultdict(list)
        self.summaries_of_conversation: dict[tuple[str, str], list[SummaryLine]] = defaultdict(list)
        for s in snap.summaries:
            self.summaries_of_person[(s.platform, s.person)].append(s)
            self.summaries_of_conversation[(s.platform, s.channel)].append(s)

    # -- people --------------------------------------------------------------------------------
    def person(self, page: PersonPage) -> Page:
        r = self.r
        names = {_key(n) for _, n in page.identities} | {_key(page.name)}
        chats = [
            (c.platform, c.channel)
            for c in self.plan.conversations
            if c.kind == "chat" and self._speaks_in(page, c.platform, c.channel)
        ]
        seen: dict[int, Item] = {}
        for source in [
            *(self.by_name.get(n, ()) for n in names),
            *(self.by_conversation.get(c, ()) for c in chats),
        ]:
            seen.update((id(i), i) for i in source)
        related = sorted(seen.values(), key=lambda i: -i.occurred_at)
        spans = [self.snap.people[i] for i in page.identities if i in self.snap.people]
        head: list[str] = []
        if len(page.identities) > 1 or page.identities[0][1] != page.name:
            head.append("- **Known as:** " + " · ".join(f"{n} ({p})" for p, n in page.identities))
        else:
            head.append(f"- **On:** {page.identities[0][0]}")
        if spans:
            head.append("- **Contact:** " + span_text(r, _merge(spans)))
        head.append("")
        talks = sorted(
            ((conv, span) for i in page.identities for conv, span in self.by_identity.get(i, ())),
            key=lambda cs: (-cs[1].count, cs[0]),
        )
        where = [
            f"- {self._conversation_link(*conv)} · {messages(span.count)} · last {r.day(span.last)}"
            for conv, span in talks
        ]
        loops = []
        for item in related:
            if not item.open or item.kind not in LOOP_KINDS:
                continue
            where_text = self._conversation_link(item.platform, item.channel)
            if item.kind == "question":
                if _named(item.author, names):
                    loops.append(r.item_line(item, f"asked by {page.name}, unanswered · {where_text}"))
                elif any(_named(a, names) for a in item.addressed_to):
                    loops.append(r.item_line(item, f"asked of {page.name} · {where_text}"))
            elif _named(item.owner, names):
                loops.append(r.item_line(item, f"{page.name} to do · {where_text}", owner=False))
            elif _named(item.author, names):
                said = "asked for it" if item.kind == "action_item" else f"raised this {item.kind}"
                loops.append(r.item_line(item, f"{page.name} {said} · {where_text}"))
        decisions = [
            r.item_line(item, self._conversation_link(item.platform, item.channel))
            for item in related
            if item.kind == "decision"
        ][:RECENT_DECISIONS]
        recent = sorted(
            (line for i in page.identities for line in self.snap.recent_by_person.get(i, ())),
            key=lambda x: (-x.timestamp, -x.id),
        )[:RECENT_LINES]
        summaries = sorted(
            (s for i in page.identities for s in self.summaries_of_person.get(i, ())), key=lambda s: -s.start
        )
        body = [
            *head,
            *section("Where you talk", where, "no conversations yet"),
            *section("Open loops", loops[:OPEN_ITEMS], "nothing open"),
            *section("Recent decisions", decisions, "none found"),
            *section(
                "Recent messages",
                [
                    r.message_line(x, self._conversation_link(x.platform, x.channel), who=False)
                    for x in recent
                ],
            ),
            *section("Summaries of older messages", r.summaries(summaries)),
        ]
        aliases = tuple(n for _, n in page.identities)
        return Page(page.path, page.name, "person", "\n".join(body), aliases)

    # -- conversations -------------------------------------------------------------------------
    def conversation(self, page: ConversationPage) -> Page:
        r = self.r
        key = (page.platform, page.channel)
        title = _room(page.platform, page.channel) if page.kind == "channel" else page.channel
        lines = self.snap.recent_by_conversation.get(key, [])
        about = topics(lines, stopwords(), tokens)
        span = self.snap.conversations.get(key)
        kind = (
            "Chat" if page.kind == "chat" else "Channel" if page.platform in HASH_PLATFORMS else "Group chat"
        )
        head = [f"- **{kind} on {page.platform}**" + (f" · {span_text(r, span)}" if span else "")]
        if about:
            head.append("- **Talked about:** " + ", ".join(about))
        head.append("")
        people = sorted(self.snap.talk.get(key, {}).items(), key=lambda kv: (-kv[1].count, kv[0]))
        people_lines = [
            f"- {self._person_link(page.platform, p)} · {messages(s.count)} · last {r.day(s.last)}"
            for p, s in people
        ]
        mine = self.by_conversation.get(key, [])
        decisions = [r.item_line(i) for i in mine if i.kind == "decision"][:RECENT_DECISIONS]
        actions = [
            r.item_line(i) for i in mine if i.open and i.kind in {"action_item", "deadline", "blocker"}
        ][:OPEN_ITEMS]
        questions = [r.item_line(i) for i in mine if i.open and i.kind == "question"][:OPEN_ITEMS]
        summaries = self.summaries_of_conversation.get(key, [])
        body = [
            *head,
            *section("People", people_lines[:40], "nobody yet"),
            *section("Decisions", decisions, "none found"),
            *section("Open action items", actions, "none open"),
            *section("Open questions", questions),
            *section("Summaries by period", r.summaries(summaries)),
            *section("Recent messages", [r.message_line(x) for x in lines[:RECENT_LINES]]),
        ]
        return Page(page.path, f"{title} ({page.platform})", page.kind, "\n".join(body), (page.channel,))

    # -- projects ------------------------------------------------------------------------------
    def project(self, page: ProjectPage, lines: Sequence[Line]) -> Page:
        r = self.r
        words = [k.casefold() for k in page.keywords if k.strip()]
        head = []
        if page.keywords:
            head.append("- **Keywords:** " + ", ".join(page.keywords))
        if page.conversations:
            head.append(
                "- **Conversations:** "
                + " · ".join(self._conversation_link(p, c) for p, c in page.conversations)
            )
        if page.unknown_channels:
            head.append("- **Not found (check the names):** " + ", ".join(page.unknown_channels))
        if lines:
            head.append(f"- **Activity:** {len(lines)} recent messages · last {r.day(lines[0].timestamp)}")
        head.append("")
        convs = set(page.conversations)
        mine = [
            i
            for i in self.items
            if (i.platform, i.channel) in convs or any(w in i.title.casefold() for w in words)
        ]
        who: dict[tuple[str, str], int] = defaultdict(int)
        for line in lines:
            who[(line.platform, line.person)] += 1
        people = [
            f"- {self._person_link(p, n)} · {messages(c)}"
            for (p, n), c in sorted(who.items(), key=lambda kv: -kv[1])
        ]
        body = [
            *head,
            *section("People", people[:30], "nobody yet"),
            *section(
                "Decisions",
                [
                    r.item_line(i, self._conversation_link(i.platform, i.channel))
                    for i in mine
                    if i.kind == "decision"
                ][:RECENT_DECISIONS],
                "none found",
            ),
            *section(
                "Open action items",
                [
                    r.item_line(i, self._conversation_link(i.platform, i.channel))
                    for i in mine
                    if i.open and i.kind != "decision"
                ][:OPEN_ITEMS],
                "none open",
            ),
            *section(
                "Recent messages",
                [r.message_line(x, self._conversation_link(x.platform, x.channel)) for x in lines[:15]],
                "no matching messages yet",
            ),
        ]
        extra = "keywords: " + ", ".join(page.keywords) if page.keywords else ""
        return Page(
            page.path,
            page.title,
            "project",
            "\n".join(body),
            extra_front_matter=extra,
            append_if_missing=page.from_file,
        )

    # -- notes ---------------------------------------------------------------------------------
    def notes(self, path: str) -> Page:
        by_channel: dict[str, list[Line]] = defaultdict(list)
        for line in self.snap.notes:
            by_channel[line.channel or "notes"].append(line)
        body = ["Notes saved with `remember` (MCP) or `POST /api/messages` as platform `note`.", ""]
        for channel in sorted(by_channel):
            body += section(channel, [self.r.message_line(x, who=False) for x in by_channel[channel]])
        if not by_channel:
            body.append("_no notes saved yet_")
        return Page(path, "Remembered notes", "notes", "\n".join(body))

    # -- links ---------------------------------------------------------------------------------
    def _conversation_link(self, platform: str, channel: str) -> str:
        page = self.plan.conversation_of.get((platform, channel))
        label = _room(platform, channel) if page is None or page.kind == "channel" else channel
        return self.r.link(page.path, f"{label} ({platform})") if page else f"{label} ({platform})"

    def _person_link(self, platform: str, person: str) -> str:
        page = self.plan.person_of.get((platform, person))
        return self.r.link(page.path, page.name) if page else person

    def _speaks_in(self, page: PersonPage, platform: str, channel: str) -> bool:
        people = self.snap.talk.get((platform, channel), {})
        return any(p == platform and n in people for p, n in page.identities)


def _merge(spans: Sequence[Span]) -> Span:
    return Span(sum(s.count for s in spans), min(s.first for s in spans), max(s.last for s in spans))


def _room(platform: str, channel: str) -> str:
    """`#general` where the platform names rooms so (Slack, Discord), the plain name elsewhere."""
    return f"#{channel.lstrip('#')}" if platform in HASH_PLATFORMS else channel


def _key(name: str) -> str:
    return name.casefold().lstrip("@")


def _named(name: str | None, names: set[str]) -> bool:
    return name is not None and _key(name) in names
