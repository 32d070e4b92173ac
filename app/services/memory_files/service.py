"""MemoryFilesService: generate the pages, and list, read, write and search the memory folder."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from app.core.clock import Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.errors import InvalidInput, NotFound
from app.core.events import Change, EventBus
from app.core.memory_files.fences import MergeStatus, front_matter, generated_body, is_user_owned
from app.core.memory_files.paths import GENERATED_FOLDERS, WRITABLE_FOLDERS, confined, normalize_file, slug
from app.core.memory_files.search import SNIPPET_CHARS, FileHit, FileIndex, clip
from app.core.memory_files.store import MemoryFile, MemoryFileStore
from app.core.search.message_query import MessageQuery
from app.core.search.passages import best_passage
from app.core.settings import MemoryFilesSettings
from app.core.storage.db import Database
from app.services.memory_files import snapshot
from app.services.memory_files.pages import Page, PageBuilder
from app.services.memory_files.plan import (
    NOTES_PAGE,
    ContactInfo,
    ConversationPage,
    PersonPage,
    Plan,
    ProjectPage,
    ProjectSpec,
    build_plan,
    page_matches,
)
from app.services.memory_files.render import Mask, Renderer
from app.services.memory_files.sources import ItemLoader, ItemScope

log = logging.getLogger(__name__)
FILES_SOURCE = "files"  # MemoryService.search(include=["files"])
JOB_ID = "memory-files-refresh"
PAGE_SCORE_FACTOR = 0.9
GONE = "_Nothing left here: the messages behind this page were deleted._"


@dataclass(frozen=True, slots=True)
class RefreshReport:
    """What a refresh did: files per outcome, the ones it left alone and why, and how long it took."""

    counts: dict[str, int]
    changed: tuple[str, ...]
    left_alone: tuple[tuple[str, str], ...]  # (path, "user_owned" | "damaged")
    seconds: float
    pages: int = 0
    notes: list[str] = field(default_factory=list)
    stale: tuple[str, ...] = ()  # generated earlier, no longer planned (kept: they may hold your notes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "counts": self.counts,
            "changed": list(self.changed),
            "left_alone": [{"path": p, "reason": r} for p, r in self.left_alone],
            "stale": list(self.stale),
            "seconds": round(self.seconds, 3),
            "notes": self.notes,
        }


class MemoryFilesService:
    def __init__(
        self, db: Database, store: MemoryFileStore, clock: Clock, *, user_id: str,
        settings: MemoryFilesSettings, me: Callable[[], Sequence[str]] = tuple, tz: tzinfo | None = None,
        contacts: Callable[[], Sequence[ContactInfo]] = tuple, items: ItemLoader = lambda scope: [],
        mask: Mask | None = None, events: EventBus | None = None,
    ) -> None:  # fmt: skip
        self.db = db
        self.store = store  # folders are made by the first write: opening a data dir writes nothing
        self.index = FileIndex(store)
        self.clock = clock
        self.user_id = user_id
        self.settings = settings
        self.me = me  # the names the user goes by (no page for them), read at each refresh
        self.renderer = Renderer(tz=tz, mask=mask) if tz else Renderer(mask=mask)
        self.contacts = contacts
        self.items = items
        self.events = events
        self._refresh_lock = threading.Lock()
        self._directory_cache: tuple[tuple[int, int], snapshot.Directory] | None = None
        self._job: Any = None
        self._had_items = True

    # -- generation ----------------------------------------------------------------------------
    def plan(self) -> Plan:
        return build_plan(self._directory(), self.contacts(), self.me(), self._project_specs())

    def _directory(self) -> snapshot.Directory:
        # Naming every page needs two grouped scans of all messages; a one-page refresh reuses them
        # until a message is added or removed.
        key = snapshot.version(self.db, self.user_id)
        if self._directory_cache is None or self._directory_cache[0] != key:
            self._directory_cache = (key, snapshot.directory(self.db, self.user_id))
        return self._directory_cache[1]

    def refresh(self, path: str | None = None) -> RefreshReport:
        """Regenerate every page, or only `path`; user text outside the fences is never touched."""
        started = time.perf_counter()
        with self._refresh_lock:
            name = None if path is None else normalize_file(path)
            # The notes page links to nothing else, so it needs no plan (cheap after every `remember`).
            plan = Plan([], [], []) if name == NOTES_PAGE else self.plan()
            pages = self._all_pages(plan) if name is None else [self._one_page(plan, name)]
            outcomes = [(page.path, self._apply(page)) for page in pages]
        counts = Counter(status.value for _, status in outcomes)
        changed = tuple(p for p, s in outcomes if s in (MergeStatus.CREATED, MergeStatus.UPDATED))
        left = tuple((p, s.value) for p, s in outcomes if s in (MergeStatus.USER_OWNED, MergeStatus.DAMAGED))
        notes = [
            f"{p}: project channel(s) not found: {', '.join(pg.unknown_channels)}"
            for p, pg in plan.by_path.items()
            if isinstance(pg, ProjectPage) and pg.unknown_channels
        ]
        if path is None and not self._had_items and plan.people:
            notes.append(
                "no insights yet, so pages list no decisions or open loops: run `strata insights generate` "
                "(the desktop app and `strata serve` do it on a schedule)"
            )
        stale = self._stale(plan) if path is None else ()
        elapsed = time.perf_counter() - started
        report = RefreshReport(dict(counts), changed, left, elapsed, len(pages), notes, stale)
        if self.events and changed:
            self.events.publish(Change("memory_file", "refreshed", changed))
        return report

    def _apply(self, page: Page) -> MergeStatus:
        new_file = page.new_file(self.renderer)
        return self.store.apply_generated(
            page.path, new_file, page.body, append_if_missing=page.append_if_missing
        )

    def _stale(self, plan: Plan) -> tuple[str, ...]:
        known = set(plan.paths())
        out: list[str] = []
        for folder in GENERATED_FOLDERS:
            for info in self.store.list(folder):
                if info.path in known:
                    continue
                try:
                    text = self.store.read(info.path).text
                except InvalidInput:
                    continue
                if front_matter(text).get("generated_by") == "strata" and not is_user_owned(text):
                    out.append(info.path)
        return tuple(out)

    def _all_pages(self, plan: Plan) -> list[Page]:
        snap = snapshot.load(
            self.db,
            self.user_id,
            snapshot.Scope(),
            recent=self.settings.recent_messages,
            topic_window=self.settings.topic_window,
        )
        items = self.items(None)
        self._had_items = bool(items)
        builder = PageBuilder(plan, snap, items, self.renderer)
        pages = [builder.person(p) for p in plan.people]
        pages += [builder.conversation(c) for c in plan.conversations]
        pages += [builder.project(p, self._project_lines(p)) for p in plan.projects]
        pages.append(builder.notes(NOTES_PAGE))
        return pages

    def _one_page(self, plan: Plan, name: str) -> Page:
        page = plan.by_path.get(name)
        if name == NOTES_PAGE:
            notes = PageBuilder(plan, snapshot.notes_only(self.db, self.user_id), (), self.renderer)
            return notes.notes(NOTES_PAGE)
        if isinstance(page, PersonPage):
            scope = snapshot.Scope(identities=page.identities)
        elif isinstance(page, ConversationPage):
            scope = snapshot.Scope(conversations=((page.platform, page.channel),))
        elif isinstance(page, ProjectPage):
            scope = snapshot.Scope(conversations=page.conversations or (("", ""),))
        else:
            raise NotFound(
                f"{name} is not a page Strata generates",
                hint="refresh a page under people/, chats/, channels/ or projects/ (see `strata files list`)",
            )
        snap = snapshot.load(
            self.db,
            self.user_id,
            scope,
            recent=self.settings.recent_messages,
            topic_window=self.settings.topic_window,
        )
        builder = PageBuilder(plan, snap, self.items(self._item_scope(plan, page, snap)), self.renderer)
        if isinstance(page, PersonPage):
            return builder.person(page)
        if isinstance(page, ConversationPage):
            return builder.conversation(page)
        assert isinstance(page, ProjectPage)
        return builder.project(page, self._project_lines(page))

    @staticmethod
    def _item_scope(plan: Plan, page: object, snap: snapshot.Snapshot) -> ItemScope:
        if isinstance(page, PersonPage):
            names = {n.casefold().lstrip("@") for _, n in page.identities} | {
                page.name.casefold().lstrip("@")
            }
            chats = tuple(
                k for k in snap.talk if k in plan.conversation_of and plan.conversation_of[k].kind == "chat"
            )
            return ItemScope(names=tuple(sorted(names)), conversations=chats)
        if isinstance(page, ConversationPage):
            return ItemScope(conversations=((page.platform, page.channel),))
        assert isinstance(page, ProjectPage)
        return ItemScope(conversations=page.conversations, words=page.keywords)

    def _project_lines(self, page: ProjectPage) -> list[snapshot.Line]:
        return snapshot.matching_lines(
            self.db, self.user_id, keywords=page.keywords, conversations=page.conversations, limit=200
        )

    def _project_specs(self) -> list[ProjectSpec]:
        """Projects named in settings, plus files in projects/ whose front matter names keywords/channels."""
        specs = [ProjectSpec(p.title, tuple(p.keywords), tuple(p.channels)) for p in self.settings.projects]
        claimed = {f"projects/{slug(s.title)}.md" for s in specs}
        for info in self.store.list("projects"):
            if info.path in claimed:
                continue
            try:
                meta = front_matter(self.store.read(info.path).text)
            except InvalidInput:
                continue
            keywords, channels = _csv(meta.get("keywords")), _csv(meta.get("channels"))
            if keywords or channels:
                title = meta.get("title") or info.path.rsplit("/", 1)[-1].removesuffix(".md")
                specs.append(ProjectSpec(title, keywords, channels, path=info.path))
        return specs

    # -- reading and writing -------------------------------------------------------------------
    def list_files(self, folder: str | None = None) -> list[dict[str, Any]]:
        self.index.refresh()
        titles = {p: t for p, t, _, _ in self.index.documents()}
        return [
            {
                "path": f.path,
                "folder": f.folder,
                "title": titles.get(f.path, f.path),
                "size": f.size,
                "modified_ns": f.modified_ns,
            }
            for f in self.store.list(folder)
        ]

    def read(self, path: str) -> MemoryFile:
        return self.store.read(path)

    def editable_path(self, path: str) -> Path:
        """The file on disk for an editor; a missing note or strategy file is created with a title."""
        name = normalize_file(path)
        if not self.store.exists(name):
            if name.split("/", 1)[0] not in WRITABLE_FOLDERS:
                raise NotFound(
                    f"no memory file {name!r}", hint="run `strata files refresh` to generate pages"
                )
            title = name.rsplit("/", 1)[-1].removesuffix(".md")
            self.store.update(name, lambda current: current if current is not None else f"# {title}\n\n")
        return confined(self.store.root, name, must_exist=True)

    def write(self, path: str, text: str, *, expected_version: str | None = None) -> MemoryFile:
        """Write a whole file: anything in notes/ and strategy/; elsewhere only outside the generated block.

        A generated page's block is Strata's: a change inside it would be overwritten by the
        next refresh, so it is refused (set `user_owned: true` to take the page over).
        """
        name = normalize_file(path)
        folder = name.split("/", 1)[0]
        if folder in GENERATED_FOLDERS and self.store.exists(name) and not is_user_owned(text):
            current = self.store.read(name)
            if not current.user_owned and generated_body(current.text) != generated_body(text):
                raise InvalidInput(
                    f"{name}: the text between the strata:begin/end markers is regenerated; "
                    "edits there would be lost",
                    hint="write your notes outside the markers, or set `user_owned: true` in the "
                    "front matter",
                )
        elif folder not in WRITABLE_FOLDERS and folder not in GENERATED_FOLDERS:
            raise InvalidInput(f"{name}: not a writable memory folder")
        written = self.store.write(name, text, expected_version=expected_version)
        if self.events:
            self.events.publish(Change("memory_file", "written", (name,)))
        return written

    def write_note(self, title: str, text: str, *, folder: str = "notes") -> tuple[MemoryFile, bool]:
        """A note file named after `title`; an existing note gets `text` appended under a dated heading."""
        if folder not in WRITABLE_FOLDERS:
            raise InvalidInput(f"notes go to {' or '.join(WRITABLE_FOLDERS)}, not {folder!r}")
        if not title.strip() or not text.strip():
            raise InvalidInput("a note needs a title and some text")
        name = normalize_file(f"{folder}/{slug(title)}")
        stamp = self.renderer.minute(self.clock.now_ms())
        clean_title, clean_text = title.strip(), text.strip()

        def add(current: str | None) -> str:
            if current is None:
                return f"---\ntitle: {clean_title}\ncreated: {stamp}\n---\n# {clean_title}\n\n{clean_text}\n"
            return current.rstrip("\n") + f"\n\n## {stamp}\n\n{clean_text}\n"

        written, created = self.store.update(name, add)
        if self.events:
            self.events.publish(Change("memory_file", "written", (name,)))
        return written, created

    def search(self, query: str, *, folder: str | None = None, limit: int = 20) -> list[FileHit]:
        if not 1 <= limit <= 200:
            raise InvalidInput(f"limit must be 1..200, got {limit}")
        return self.index.search(query, folder=folder, limit=limit)

    def hits(self, query: MessageQuery) -> list[SearchHit]:
        """Memory files as unified-search hits (kind `memory_file`), for `include=["files"]`."""
        if not query.text.strip():
            return []
        limit = max(1, min(query.limit, 50))
        if query.filters.is_empty():
            found = self.index.search(query.text, limit=limit)
        else:  # the filter drops pages after the search: look further so it does not eat the limit
            found = self._filtered(self.index.search(query.text, limit=50), query.filters)[:limit]
        texts = {p: text for p, _, text, _ in self.index.documents()} if found else {}
        hits: list[SearchHit] = []
        for h in found:
            # Relevance on the unified 0–1 scale, from the page's best passage (a list item or a
            # paragraph, read with the title and heading: passages.py), not from words scattered
            # over the whole page. Its score is a little lower, so a message that matches as well
            # ranks first: the page quotes messages, the message is the record.
            relevance, passage = best_passage(query.text, h.title, texts.get(h.path, ""))
            lines = [t for _, t in h.snippets]
            if passage is not None:
                shown = clip(passage.text, SNIPPET_CHARS)
                lines = [shown, *(t for n, t in h.snippets if n != passage.line)][: len(lines) or 1]
            hits.append(
                SearchHit(
                    id=f"file:{h.path}",
                    kind="memory_file",
                    content=h.title + "\n" + "\n".join(lines),
                    score=PAGE_SCORE_FACTOR * relevance,
                    platform=None,
                    channel=h.path,
                    person=None,
                    timestamp=h.modified_ns // 1_000_000,
                    tier=None,
                    extra={"path": h.path, "title": h.title},
                    relevance=relevance,
                )
            )
        return hits

    def _filtered(self, found: list[FileHit], filters: SearchFilters) -> list[FileHit]:
        """Pages a unified-search filter leaves: the date range applies to the time a hit shows
        (the page's last change), person, channel and platform to the page's subject."""
        since, until = filters.since, filters.until
        found = [
            h
            for h in found
            if (since is None or h.modified_ns // 1_000_000 >= since)
            and (until is None or h.modified_ns // 1_000_000 <= until)
        ]
        if not found or not (filters.persons or filters.channels or filters.platforms):
            return found
        by_path = self.plan().by_path
        return [h for h in found if page_matches(by_path.get(h.path), filters)]

    # -- deletion ------------------------------------------------------------------------------
    def on_messages_deleted(self, user_id: str, erased: Sequence[Any]) -> dict[str, int]:
        """Deletion hook: pages quoting deleted messages are regenerated without them.

        A page is affected when it links the message (`strata://message/<id>`) or belongs to its
        person or conversation; a page with nothing left keeps only a note in its generated block.
        """
        if user_id != self.user_id or not erased:
            return {}
        links = {f"strata://message/{row.id})" for row in erased}
        affected = {p for p, _, text, _ in self.index.documents() if any(link in text for link in links)}
        with self._refresh_lock:
            self._directory_cache = None  # people or conversations may have vanished
            plan = self.plan()
        for row in erased:
            for page in (
                plan.person_of.get((row.platform, row.person)),
                plan.conversation_of.get((row.platform, row.channel)),
            ):
                if page is not None:
                    affected.add(page.path)
        rewritten = 0
        for path in sorted(affected):
            if path == NOTES_PAGE or path in plan.by_path:
                rewritten += bool(self.refresh(path).changed)
            elif self.store.apply_generated(path, "", GONE, append_if_missing=False) is MergeStatus.UPDATED:
                rewritten += 1
        # Named like the other hooks' counts; nothing to say when no page changed.
        return {"memoryFilesRewritten": rewritten} if rewritten else {}

    # -- scheduling ----------------------------------------------------------------------------
    def schedule(self, scheduler: Any, *, first_run_in_seconds: float = 120) -> Any:
        if not self.settings.enabled:
            return None
        first = datetime.now(UTC) + timedelta(seconds=first_run_in_seconds)
        self._job = scheduler.add_job(
            self.run_scheduled,
            "interval",
            minutes=self.settings.schedule_minutes,
            id=JOB_ID,
            replace_existing=True,
            max_instances=1,
            coalesce=True,
            next_run_time=first,
        )
        return self._job

    def run_scheduled(self) -> RefreshReport | None:
        try:
            return self.refresh()
        except Exception:
            log.exception("memory files refresh failed")
            return None


def _csv(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    text = value.strip().strip("[]")
    return tuple(p.strip().strip("'\"") for p in text.split(",") if p.strip())
