"""Add → search → full content → remove for every format, on real SQLite, LanceDB and files."""

from __future__ import annotations

import kbfiles
import pytest
from kbstate import footprint

from app.core.errors import Conflict, NotFound

FORMATS = {
    "report.pdf": lambda: kbfiles.pdf_bytes(
        ["Introduction to the zeppelin program", "The zeppelin budget is 4.2 million"], title="Report"
    ),
    "plan.docx": lambda: kbfiles.docx_bytes(
        [("h1", "Plan"), ("p", "The zeppelin hangar opens in May.")],
        table=[["Item", "Cost"], ["Hangar", "900"]],
    ),
    "deck.pptx": lambda: kbfiles.pptx_bytes([("Zeppelin", ["Hangar tour"], "Mention the zeppelin budget")]),
    "budget.xlsx": lambda: kbfiles.xlsx_bytes({"Costs": [["Item", "Amount"], ["Zeppelin hull", 1200]]}),
    "people.csv": lambda: kbfiles.csv_bytes([["name", "role"], ["Ada", "zeppelin pilot"]]),
    "notes.txt": lambda: b"Remember the zeppelin inspection on Friday.",
    "guide.md": lambda: b"# Guide\n\n## Zeppelin\n\nInflate slowly.\n",
    "page.html": lambda: (
        b"<html><head><title>Z</title></head><body><h1>Zeppelin</h1><p>Docking rules</p></body></html>"
    ),
    "review.key": lambda: kbfiles.iwork_bytes(kbfiles.pdf_bytes(["Zeppelin quarterly review"])),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_round_trip_every_format(services, name):
    kb = services.knowledge
    data = FORMATS[name]()
    info = kb.add_bytes(data, name)
    assert info.file_name == name and info.size_bytes == len(data) and info.total_chunks >= 1
    stored = services.layout.root / info.blob_path
    assert stored.read_bytes() == data and stored.parent == services.layout.documents

    hits = kb.search("zeppelin")
    assert hits and hits[0].document_id == info.id and "eppelin" in hits[0].content
    assert hits[0].file_name == name

    content = kb.get(info.id)
    assert "eppelin" in content.content.lower()
    assert content.info == info
    assert [d.id for d in kb.list_documents()] == [info.id]

    removed = kb.remove(info.id)
    assert removed.id == info.id
    assert footprint(services).empty
    assert kb.search("zeppelin") == []
    with pytest.raises(NotFound):
        kb.get(info.id)


def test_location_metadata_travels_to_hits(services):
    kb = services.knowledge
    kb.add_bytes(kbfiles.pdf_bytes(["nothing here", "the albatross clause"]), "contract.pdf")
    kb.add_bytes(kbfiles.pptx_bytes([("One", ["x"], None), ("Albatross", ["wing"], None)]), "birds.pptx")
    kb.add_bytes(kbfiles.xlsx_bytes({"Fleet": [["Name", "Type"], ["Albatross", "glider"]]}), "fleet.xlsx")
    by_file = {h.file_name: h for h in kb.search("albatross", limit=10)}
    assert by_file["contract.pdf"].location["page"] == 2
    assert by_file["birds.pptx"].location["slide"] == 2
    assert by_file["fleet.xlsx"].location["sheet"] == "Fleet"
    assert by_file["birds.pptx"].to_dict()["slide"] == 2


def test_metadata_and_content_type(services):
    info = services.knowledge.add_bytes(FORMATS["report.pdf"](), "report.pdf")
    assert info.content_type == "application/pdf" and info.format == "pdf"
    assert info.metadata["title"] == "Report" and info.metadata["pages"] == 2
    data = info.to_dict()
    assert set(data) == {
        "id",
        "fileName",
        "contentType",
        "format",
        "sizeBytes",
        "totalChunks",
        "uploadedAt",
        "contentHash",
        "metadata",
    }
    assert data["uploadedAt"] == "2026-11-21T12:00:00Z"


def test_duplicate_upload_is_refused(services):
    kb = services.knowledge
    first = kb.add_bytes(b"same bytes twice", "a.txt")
    before = footprint(services)
    with pytest.raises(Conflict) as info:
        kb.add_bytes(b"same bytes twice", "b.txt")
    assert "b.txt" in str(info.value) and first.id in str(info.value)
    assert footprint(services) == before


def test_client_paths_are_reduced_to_the_file_name(services):
    info = services.knowledge.add_bytes(b"path test", "C:\\Users\\ada\\secret\\notes.txt")
    assert info.file_name == "notes.txt"
    info = services.knowledge.add_bytes(b"path test 2", "../../etc/passwd.txt")
    assert info.file_name == "passwd.txt"
    assert (services.layout.root / info.blob_path).parent == services.layout.documents


def test_listing_is_newest_first_and_pages(services, clock):
    kb = services.knowledge
    ids = []
    for n in range(4):
        ids.append(kb.add_bytes(f"document number {n}".encode(), f"d{n}.txt").id)
        clock.advance(1000)
    assert [d.id for d in kb.list_documents()] == ids[::-1]
    assert [d.id for d in kb.list_documents(limit=2, offset=1)] == ids[2:0:-1]
    assert kb.count() == 4


@pytest.mark.parametrize("batch", [1000, 3])
def test_long_document_is_chunked_and_batched(make_services, batch):
    services = make_services(insert_batch_size=batch)
    text = "\n\n".join(f"Paragraph {i}: " + kbfiles.LOREM * 3 for i in range(40))
    info = services.knowledge.add_bytes(text.encode(), "long.txt")
    fp = footprint(services)
    assert info.total_chunks == fp.chunks == fp.vectors == fp.keywords >= 20
    assert fp.documents == 1 and fp.files == 1
    indexes = [h.chunk_index for h in services.knowledge.search("Paragraph 39", limit=100)]
    assert info.total_chunks - 1 in indexes
