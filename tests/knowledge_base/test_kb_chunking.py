"""Chunking: 1000 / 200 RecursiveCharacterTextSplitter per section, indexes and locations carried."""

from __future__ import annotations

import itertools

import kbfiles
import pytest

from knowledge_base.chunking import CHUNK_OVERLAP, CHUNK_SIZE, Chunk, Chunker
from knowledge_base.document import DocumentFormat, ParsedDocument, Section
from knowledge_base.parsing import parse_document


def _doc(*sections: Section) -> ParsedDocument:
    return ParsedDocument(format=DocumentFormat.TXT, sections=sections)


def test_spec_defaults():
    assert (CHUNK_SIZE, CHUNK_OVERLAP) == (1000, 200)
    chunker = Chunker()
    assert (chunker.chunk_size, chunker.chunk_overlap) == (1000, 200)


def test_short_section_is_one_chunk():
    chunks = Chunker().split(_doc(Section("hello world", page=3)))
    assert chunks == [Chunk(index=0, content="hello world", location={"page": 3})]
    assert chunks[0].metadata() == {"page": 3, "chars": 11}


def test_long_text_chunks_respect_size_and_overlap():
    words = [f"word{i:04d}" for i in range(1500)]  # ~13,500 characters
    chunks = Chunker().split(_doc(Section(" ".join(words))))
    assert len(chunks) > 13
    assert all(len(c.content) <= 1000 for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for left, right in itertools.pairwise(chunks):
        # Consecutive chunks share text: the start of one repeats the tail of the previous one.
        first_word = right.content.split()[0]
        assert first_word in left.content
        shared = left.content[left.content.index(first_word) :]
        assert 100 <= len(shared) <= 200
    # Nothing lost: every word lands in some chunk.
    joined = " ".join(c.content for c in chunks)
    assert all(w in joined for w in words)


def test_paragraph_breaks_are_preferred_split_points():
    para = "sentence " * 60  # ~540 chars
    chunks = Chunker().split(_doc(Section(f"{para.strip()}\n\n{para.strip()}\n\n{para.strip()}")))
    assert all(c.content.startswith("sentence") and c.content.endswith("sentence") for c in chunks)
    assert len(chunks) == 3


def test_chunks_never_straddle_sections_and_keep_location():
    doc = _doc(
        Section("a " * 700, page=1),
        Section("b " * 100, page=2),
        Section("c", slide=4, heading="Intro"),
        Section("d", sheet="Budget"),
    )
    chunks = Chunker().split(doc)
    pages = [c.location.get("page") for c in chunks]
    assert pages[:2] == [1, 1] and pages[2] == 2
    assert all(set(c.content.split()) <= {"a"} for c in chunks if c.location.get("page") == 1)
    assert chunks[-2].location == {"slide": 4, "heading": "Intro"}
    assert chunks[-1].location == {"sheet": "Budget"}
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_embedding_text_carries_heading_or_sheet():
    assert Chunk(0, "body", {"heading": "Risks"}).embedding_text == "Risks\nbody"
    assert Chunk(0, "Risks and more", {"heading": "Risks"}).embedding_text == "Risks and more"
    assert Chunk(0, "a | b", {"sheet": "Q3"}).embedding_text == "Sheet Q3\na | b"
    assert Chunk(0, "plain", {"page": 1}).embedding_text == "plain"


def test_custom_sizes_and_validation():
    chunks = Chunker(chunk_size=100, chunk_overlap=20).split(_doc(Section("x " * 200)))
    assert all(len(c.content) <= 100 for c in chunks) and len(chunks) >= 4
    for bad in [(0, 0), (100, 100), (100, -1)]:
        with pytest.raises(ValueError):
            Chunker(*bad)


def test_real_pdf_and_pptx_chunks_carry_page_and_slide():
    pdf = parse_document(kbfiles.pdf_bytes([kbfiles.LOREM * 10, kbfiles.LOREM]), "l.pdf")
    chunks = Chunker().split(pdf)
    assert {c.location["page"] for c in chunks} == {1, 2}
    assert sum(1 for c in chunks if c.location["page"] == 1) >= 2
    deck = parse_document(kbfiles.pptx_bytes([("One", ["x"], None), ("Two", ["y"], "n")]), "d.pptx")
    assert [(c.location["slide"], c.location["heading"]) for c in Chunker().split(deck)] == [
        (1, "One"),
        (2, "Two"),
    ]
