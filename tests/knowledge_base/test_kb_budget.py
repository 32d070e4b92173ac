"""A document's cost bound: character and chunk limits, the XML-part guard, progress and cancel."""

from __future__ import annotations

import threading
import time
import tracemalloc

import kbfiles
import pytest
from kbstate import footprint

from app.core.errors import Cancelled, PayloadTooLarge
from knowledge_base.budget import count_chars
from knowledge_base.guards import Limits, check_zip

MB = 1024 * 1024


def test_a_100_mb_text_file_is_refused_quickly_with_bounded_memory(make_services, tmp_path):
    services = make_services()
    path = tmp_path / "huge.txt"
    line = b"the quarterly budget review moved to thursday, see the notes \xc3\xa9t\xc3\xa9\n"
    with path.open("wb") as out:
        block = line * (MB // len(line))
        for _ in range(100):
            out.write(block)
    size = path.stat().st_size
    assert 99 * MB < size <= 100 * MB  # under the file-size limit: the character limit must catch it

    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(PayloadTooLarge) as info:
            services.knowledge.add_file(path)
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert "huge.txt: this document has" in message and "characters; the limit is 2,000,000" in message
    assert "kb.max_extracted_chars" in info.value.hint
    # The file's own bytes, plus slices of it: no decoded copy, no chunks, no vectors.
    assert peak - size < 24 * MB, f"peak {peak / MB:.0f} MB for a {size / MB:.0f} MB file"
    assert elapsed < 20
    assert footprint(services).empty


def test_the_count_in_the_message_is_exact():
    text = "aé€😀\n" * 300_000  # 1-4 bytes per character, slices cut characters in half
    assert count_chars(text.encode("utf-8")) == len(text)
    assert count_chars(text.encode("utf-16")) == len(text)
    assert count_chars(b"\xef\xbb\xbf" + b"abc") == 3
    assert count_chars(b"caf\xe9 ok") == 7  # Windows-1252: one byte, one character


def test_character_limit_for_parsed_formats(make_services):
    services = make_services(max_extracted_chars=2_000)
    data = kbfiles.docx_bytes([("h1", "Handbook")] + [("p", kbfiles.LOREM)] * 40)
    with pytest.raises(
        PayloadTooLarge, match=r"a.docx: this document has more than 2,000 characters, the limit \(stopped"
    ):
        services.knowledge.add_bytes(data, "a.docx")
    assert footprint(services).empty


def test_chunk_limit(make_services):
    services = make_services(max_chunks=3)
    text = "\n\n".join(f"Paragraph {i}. " + kbfiles.LOREM for i in range(40)).encode()
    with pytest.raises(PayloadTooLarge) as info:
        services.knowledge.add_bytes(text, "notes.txt")
    assert "notes.txt: this document splits into more than 3 chunks" in str(info.value)
    assert "kb.max_chunks" in info.value.hint
    assert footprint(services).empty


def test_an_oversized_xml_part_is_refused_before_parsing():
    # Checked on the central directory's sizes, before any byte is inflated.
    body = b"<w:p><w:r><w:t>" + b"row " * 500_000 + b"</w:t></w:r></w:p>"
    package = kbfiles.with_extra_members(kbfiles.docx_bytes([("p", "x")]), {"word/big.xml": body})
    limits = Limits(max_xml_part_bytes=1 * MB, max_zip_ratio=1e9)
    with pytest.raises(
        PayloadTooLarge, match=r"part 'word/big.xml' inflates to 1.9 MB of XML, over the 1.0 MB"
    ):
        check_zip(package, "big.docx", limits)
    check_zip(package, "big.docx", Limits(max_zip_ratio=1e9))  # 2 MB of XML is fine by default


def test_progress_counts_embedding_batches_and_cancel_stores_nothing(make_services):
    services = make_services()
    text = "\n\n".join(f"Section {i}. " + kbfiles.LOREM for i in range(40)).encode()
    seen: list[tuple[str, int, int]] = []
    info = services.knowledge.add_bytes(text, "a.txt", progress=lambda *s: seen.append(s))
    embeds = [s for s in seen if s[0] == "embed"]
    assert embeds[0] == ("embed", 0, info.total_chunks) and embeds[-1][1] == info.total_chunks
    assert len(embeds) > 2  # several batches, each reported
    before = footprint(services)

    cancel = threading.Event()

    def stop_after_first_batch(stage: str, done: int, total: int) -> None:
        if stage == "embed" and done > 0:
            cancel.set()

    with pytest.raises(Cancelled, match=r"b\.txt: adding was cancelled; nothing was stored"):
        services.knowledge.add_bytes(text + b" more", "b.txt", progress=stop_after_first_batch, cancel=cancel)
    assert footprint(services) == before
