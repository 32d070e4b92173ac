"""Limits checked before parsing: file size, zip bombs and oversized XML parts in OOXML / iWork packages."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from app.core.errors import PayloadTooLarge, UnreadableDocument

MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Upper bounds for one uploaded file; every one is configurable (settings `kb.*`)."""

    max_file_bytes: int = 100 * MB
    max_zip_entries: int = 10_000
    max_zip_uncompressed_bytes: int = 512 * MB
    # Deflate tops out near 1000:1 on zeros; real documents stay far below 100:1.
    max_zip_ratio: float = 200.0
    # Small members may compress absurdly well (an XML part of repeated tags); ignore their ratio.
    ratio_check_min_bytes: int = 1 * MB
    # One XML part inflated: the parsers build a DOM of it (~10x its size in memory), so a 157 MB
    # document.xml that passes the ratio check still takes gigabytes before a chunk exists.
    max_xml_part_bytes: int = 64 * MB
    # Cost bound per document (knowledge_base/budget.py): text extracted and chunks to embed.
    max_extracted_chars: int = 2_000_000
    max_chunks: int = 4_000


DEFAULT_LIMITS = Limits()
_XML_SUFFIXES = (".xml", ".rels", ".vml", ".apxl")


def check_size(size: int, filename: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse files above the size limit before reading them into memory."""
    if size > limits.max_file_bytes:
        raise PayloadTooLarge(
            f"{filename}: {_human(size)} is over the {_human(limits.max_file_bytes)} limit",
            hint="split the document, or raise kb.max_file_bytes in settings.toml",
        )


def check_zip(data: bytes, filename: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse zip packages whose entry count, total uncompressed size or compression ratio is a bomb.

    The sizes come from the central directory; zipfile never inflates a member past its declared
    size, so a lying header cannot get more past this check than it declares.
    """
    infos = read_zip_index(data, filename)
    if len(infos) > limits.max_zip_entries:
        raise PayloadTooLarge(
            f"{filename}: the package holds {len(infos):,} entries, over the {limits.max_zip_entries:,} "
            "limit (possible zip bomb)",
            hint="re-save the document, or raise kb.max_zip_entries if it is genuine",
        )
    total = 0
    for info in infos:
        total += info.file_size
        if total > limits.max_zip_uncompressed_bytes:
            raise PayloadTooLarge(
                f"{filename}: the package inflates to more than "
                f"{_human(limits.max_zip_uncompressed_bytes)} (possible zip bomb)",
                hint="re-save the document, or raise kb.max_zip_uncompressed_bytes if it is genuine",
            )
        if info.file_size > limits.max_xml_part_bytes and info.filename.lower().endswith(_XML_SUFFIXES):
            raise PayloadTooLarge(
                f"{filename}: part {info.filename!r} inflates to {_human(info.file_size)} of XML, over the "
                f"{_human(limits.max_xml_part_bytes)} limit",
                hint="split the document, or raise kb.max_xml_part_bytes in settings.toml if it is genuine",
            )
        if info.file_size >= limits.ratio_check_min_bytes:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_zip_ratio:
                raise PayloadTooLarge(
                    f"{filename}: member {info.filename!r} compresses {ratio:,.0f}:1, over the "
                    f"{limits.max_zip_ratio:,.0f}:1 limit (possible zip bomb)",
                    hint="re-save the document, or raise kb.max_zip_ratio if it is genuine",
                )


def read_zip_index(data: bytes, filename: str) -> list[zipfile.ZipInfo]:
    """The members of a zip package, or UnreadableDocument when its directory is damaged."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return archive.infolist()
    except Exception as exc:  # damage shows up as BadZipFile, ValueError or "unsupported version"
        raise UnreadableDocument(
            f"{filename}: corrupt zip package ({exc})", hint="re-save or re-export the file and try again"
        ) from exc


def _human(size: int) -> str:
    if size >= MB:
        return f"{size / MB:,.1f} MB"
    if size >= 1024:
        return f"{size / 1024:,.1f} KB"
    return f"{size} bytes"
