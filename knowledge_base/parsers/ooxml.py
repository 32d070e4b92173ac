"""Reading OOXML packages (DOCX, PPTX) part by part with lxml, never the whole package as one tree.

Every XML part is parsed without entity resolution, DTDs or network access, and with lxml's
default (non-"huge") tree limits, so a part cannot expand itself in memory beyond its own bytes;
the zip guard has already bounded each part's inflated size (`kb.max_xml_part_bytes`). The main
part of a document is not parsed as a tree at all: `iterparse` streams it, and the caller clears
each block once its text is out.
"""

from __future__ import annotations

import datetime as dt
import io
import posixpath
import zipfile
from collections.abc import Iterator
from typing import IO, Any

from lxml import etree

_NS_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_NS_CORE = {
    "title": "{http://purl.org/dc/elements/1.1/}title",
    "author": "{http://purl.org/dc/elements/1.1/}creator",
    "subject": "{http://purl.org/dc/elements/1.1/}subject",
    "created": "{http://purl.org/dc/terms/}created",
}
_PARSER_OPTIONS: dict[str, Any] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "huge_tree": False,
    "remove_comments": True,
    "remove_pis": True,
}


class CountingReader(io.RawIOBase):
    """A read-only file that counts the bytes handed out: the streamed part's progress."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.count += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def open_package(data: bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(data))


def parse_part(archive: zipfile.ZipFile, name: str) -> Any:
    """A small part (styles, rels, one slide) as a tree; None when the package lacks it."""
    try:
        raw = archive.read(name)
    except KeyError:
        return None
    return etree.fromstring(raw, etree.XMLParser(**_PARSER_OPTIONS))


def iterparse(source: IO[bytes], events: tuple[str, ...] = ("start", "end")) -> Iterator[tuple[str, Any]]:
    """(event, element) pairs of a large part, read as it is inflated."""
    return etree.iterparse(source, events=events, **_PARSER_OPTIONS)  # type: ignore[no-any-return]


def forget(element: Any) -> None:
    """Free a streamed block and the siblings before it: the tree never holds more than one block."""
    element.clear(keep_tail=False)
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


def relationships(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """A part's relationships: id → (type's last word, target part name resolved from the part)."""
    folder, base = posixpath.split(part)
    root = parse_part(archive, posixpath.join(folder, "_rels", f"{base}.rels"))
    found: dict[str, tuple[str, str]] = {}
    if root is None:
        return found
    for rel in root.iter(f"{{{_NS_REL}}}Relationship"):
        if rel.get("TargetMode") == "External":
            continue
        target = rel.get("Target", "")
        path = (
            target.lstrip("/")
            if target.startswith("/")
            else posixpath.normpath(posixpath.join(folder, target))
        )
        found[rel.get("Id", "")] = (rel.get("Type", "").rsplit("/", 1)[-1], path)
    return found


def core_properties(archive: zipfile.ZipFile) -> dict[str, Any]:
    """Title, author, subject and creation time from docProps/core.xml (any of them may be missing)."""
    root = parse_part(archive, "docProps/core.xml")
    if root is None:
        return {}
    out: dict[str, Any] = {}
    for key, tag in _NS_CORE.items():
        element = root.find(tag)
        if element is not None and element.text and element.text.strip():
            out[key] = element.text.strip()
    if "created" in out:
        out["created"] = _w3cdtf(out["created"])
    return out


def _w3cdtf(text: str) -> Any:
    """A W3CDTF time as an aware datetime (what python-docx gave before); the text when it is odd."""
    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
