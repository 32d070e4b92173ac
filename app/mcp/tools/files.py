"""Memory-file tools for agents: list_memory_files, read_memory_file, search_memory_files, write_memory_note.

The memory files are markdown pages under the data dir's `memory/` folder: generated pages about
people, chats, channels and projects, plus the user's (and agents') notes and strategy files.
Results are bounded by `max_tokens`, with an offset to read on.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from app.bootstrap import Services
from app.mcp.budget import CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS, paginate
from app.mcp.errors import strata_tool

log = logging.getLogger(__name__)

LIST_DESCRIPTION = """List the user's memory files: markdown pages about each person (people/), chat
(chats/), channel (channels/) and project (projects/) that Strata keeps up to date from their messages,
plus notes (notes/) and the user's own strategy files (strategy/). Use it to see what pages exist or to
find a page's `path`; to look for a fact, use search_memory_files instead. Returns `path`, `title`,
`size`; page with `offset`."""

READ_DESCRIPTION = """Read one memory file by its `path` (from list_memory_files or search_memory_files),
e.g. people/anna.md: who the person is across platforms, where you talk, open loops, recent decisions
and messages, with `strata://message/<id>` links whose ids get_memory accepts. Long files come in
pages: if `next_offset` is set, call again with it. Not for searching: use search_memory_files."""

SEARCH_DESCRIPTION = """Case-insensitive full-text search over the memory files (people, chats,
channels, projects, notes, strategy). Use it when the user asks "what do you know about X" or for a
fact they or you wrote down; every word must appear in a file ("quoted phrases" stay whole), else
files with some of the words are returned. Returns `path`, `title` and matching lines; read the file
with read_memory_file. For what was said in chats, search_memory searches the messages themselves."""

WRITE_DESCRIPTION = """Save a note as a markdown memory file the user can read and edit: notes/<title>.md
(or strategy/ when the user says it is strategy). If a note with that title exists, the text is appended
under a dated heading; nothing is ever overwritten. Use it when the user asks you to write something
down as a note or document; for a single short fact, remember is enough. Returns the file's `path`."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def register(server: MCPServer, services: Services) -> None:
    files = services.files

    @strata_tool
    def list_memory_files(
        folder: Annotated[
            Literal["people", "chats", "channels", "projects", "notes", "strategy"] | None,
            Field(description="only this folder"),
        ] = None,
        offset: Annotated[int, Field(ge=0, description="skip this many files (paging)")] = 0,
        max_tokens: Annotated[int, Field(ge=200, le=20_000, description="size budget")] = DEFAULT_MAX_TOKENS,
    ) -> dict[str, Any]:
        listed = files.list_files(folder)
        items = [{"path": f["path"], "title": f["title"], "size": f["size"]} for f in listed[offset:]]
        page = paginate(items, offset=offset, max_tokens=max_tokens)
        return page.envelope("files", total=len(listed))

    @strata_tool
    def read_memory_file(
        path: Annotated[str, Field(min_length=1, max_length=300, description="e.g. people/anna.md")],
        offset: Annotated[int, Field(ge=0, description="character offset, from next_offset")] = 0,
        max_tokens: Annotated[int, Field(ge=200, le=20_000, description="size budget")] = 4000,
    ) -> dict[str, Any]:
        found = files.read(path)
        end = min(len(found.text), offset + max_tokens * CHARS_PER_TOKEN)
        if end < len(found.text):
            cut = found.text.rfind("\n", offset, end)
            end = cut + 1 if cut > offset else end  # end a page at a line break when one is near
        # Notes are the user's own text and go to a cloud model: secrets masked, as the page reads
        # in the whole file (the page end never cuts one in two).
        text, end = services.privacy.page(found.text, offset, end - offset)
        page: dict[str, Any] = {
            "path": found.path,
            "title": found.title,
            "total_chars": len(found.text),
            "offset": offset,
            "text": text,
            "next_offset": end if end < len(found.text) else None,
        }
        if text != found.text[offset:end]:
            page["masked"] = True
        return page

    @strata_tool
    def search_memory_files(
        query: Annotated[str, Field(min_length=1, max_length=500, description="words or a quoted phrase")],
        folder: Annotated[
            Literal["people", "chats", "channels", "projects", "notes", "strategy"] | None,
            Field(description="only this folder"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="files to return")] = 10,
        max_tokens: Annotated[int, Field(ge=200, le=20_000, description="size budget")] = DEFAULT_MAX_TOKENS,
    ) -> dict[str, Any]:
        hits = files.search(query, folder=folder, limit=limit)
        items = [
            {
                "path": h.path,
                "title": h.title,
                "lines": [f"{n}: {services.privacy.mask(t)}" for n, t in h.snippets],
            }
            for h in hits
        ]
        page = paginate(items, offset=0, max_tokens=max_tokens)
        return page.envelope("files", query=query)

    @strata_tool
    def write_memory_note(
        title: Annotated[str, Field(min_length=1, max_length=120, description="becomes the file name")],
        text: Annotated[str, Field(min_length=1, max_length=50_000, description="markdown")],
        folder: Annotated[
            Literal["notes", "strategy"], Field(description="notes (default) or strategy")
        ] = "notes",
    ) -> dict[str, Any]:
        written, created = files.write_note(title, text, folder=folder)
        return {"path": written.path, "created": created, "appended": not created, "size": len(written.text)}

    server.add_tool(list_memory_files, description=LIST_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(read_memory_file, description=READ_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(search_memory_files, description=SEARCH_DESCRIPTION, annotations=READ_ONLY)
    server.add_tool(
        write_memory_note,
        description=WRITE_DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    )
