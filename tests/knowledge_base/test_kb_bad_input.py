"""Every kind of bad upload fails with a clear error naming the file, and leaves nothing stored."""

from __future__ import annotations

import io
import zipfile

import kbfiles
import pytest
from kbstate import footprint
from sqlalchemy import text

from app.core.errors import (
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    StorageError,
    UnreadableDocument,
    UnsupportedFormat,
)

BAD = [
    (
        "broken.pdf",
        lambda: kbfiles.pdf_bytes(["text"])[:300],
        UnreadableDocument,
        "corrupt or unreadable PDF",
    ),
    ("broken.docx", lambda: kbfiles.docx_bytes([("p", "x")])[:500], UnreadableDocument, "corrupt zip"),
    ("locked.pdf", kbfiles.encrypted_pdf_bytes, UnreadableDocument, "encrypted with a password"),
    ("scan.pdf", kbfiles.image_only_pdf_bytes, UnreadableDocument, "no extractable text"),
    ("empty.txt", lambda: b"", UnreadableDocument, "the file is empty"),
    ("blank.docx", lambda: kbfiles.docx_bytes([]), UnreadableDocument, "contains no text"),
    ("none.xlsx", lambda: kbfiles.xlsx_bytes({"A": []}), UnreadableDocument, "every sheet is empty"),
    (
        "bomb.docx",
        lambda: kbfiles.with_extra_members(
            kbfiles.docx_bytes([("p", "x")]), {"word/z.bin": b"\0" * (4 << 20)}
        ),
        PayloadTooLarge,
        "zip bomb",
    ),
    ("photo.png", lambda: b"\x89PNG\r\n\x1a\n" + b"\0" * 64, UnsupportedFormat, "PNG image"),
    ("talk.key", lambda: kbfiles.iwork_bytes(None), UnsupportedFormat, "Export To"),
    (
        "old.doc",
        lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512,
        UnsupportedFormat,
        "legacy Office",
    ),
]


@pytest.mark.parametrize(("name", "make", "error", "reason"), BAD, ids=[b[0] for b in BAD])
def test_bad_upload_is_refused_and_nothing_is_stored(services, name, make, error, reason):
    with pytest.raises(error) as info:
        services.knowledge.add_bytes(make(), name)
    message = str(info.value)
    assert message.startswith(f"{name}: ") and reason in message
    assert footprint(services).empty


@pytest.mark.parametrize(("name", "make", "error", "reason"), BAD[:6], ids=[b[0] for b in BAD[:6]])
def test_bad_file_from_disk(services, tmp_path, name, make, error, reason):
    path = kbfiles.write(tmp_path, name, make())
    with pytest.raises(error, match=reason):
        services.knowledge.add_file(path)
    assert footprint(services).empty


def test_size_limit_is_configurable_and_checked_before_reading(make_services, tmp_path):
    services = make_services(max_file_bytes=1000)
    path = kbfiles.write(tmp_path, "big.txt", b"word " * 400)
    with pytest.raises(PayloadTooLarge, match=r"^big.txt: 2.0 KB is over the 1000 bytes limit"):
        services.knowledge.add_file(path)
    with pytest.raises(PayloadTooLarge):
        services.knowledge.add_bytes(b"word " * 400, "big.txt")
    assert footprint(services).empty
    services.knowledge.add_bytes(b"small enough", "ok.txt")


def test_zip_limits_are_configurable(make_services):
    services = make_services(max_zip_entries=20)
    package = kbfiles.with_extra_members(kbfiles.pptx_bytes([("t", ["b"], None)]), {}, count=30)
    with pytest.raises(PayloadTooLarge, match="entries, over the 20 limit"):
        services.knowledge.add_bytes(package, "many.pptx")
    assert footprint(services).empty


def test_missing_paths_and_folders(services, tmp_path):
    with pytest.raises(NotFound, match="no such file"):
        services.knowledge.add_file(tmp_path / "nope.pdf")
    (tmp_path / "folder").mkdir()
    with pytest.raises(InvalidInput, match="is a folder"):
        services.knowledge.add_file(tmp_path / "folder")


def test_iwork_bundle_folder_is_read(services, tmp_path):
    bundle = tmp_path / "Review.pages"
    (bundle / "QuickLook").mkdir(parents=True)
    (bundle / "Index").mkdir()
    (bundle / "Index" / "Document.iwa").write_bytes(b"\0\1")
    (bundle / "QuickLook" / "Preview.pdf").write_bytes(kbfiles.pdf_bytes(["Bundle preview text"]))
    info = services.knowledge.add_file(bundle)
    assert info.format == "pages" and info.file_name == "Review.pages"
    assert "Bundle preview text" in services.knowledge.get(info.id).content
    stored = services.layout.root / info.blob_path
    assert zipfile.ZipFile(io.BytesIO(stored.read_bytes())).namelist()


def test_database_failure_mid_add_undoes_file_and_vectors(services):
    """A real SQLite failure (a trigger aborting the chunk insert) after the file and vectors were written."""
    with services.db.write() as session:
        session.execute(
            text(
                "CREATE TRIGGER fail_chunks BEFORE INSERT ON rag_chunks "
                "BEGIN SELECT RAISE(ABORT, 'disk says no'); END"
            )
        )
    with pytest.raises(StorageError, match=r"^doomed.txt: could not store the document"):
        services.knowledge.add_bytes(b"this will not be stored", "doomed.txt")
    assert footprint(services).empty
    with services.db.write() as session:
        session.execute(text("DROP TRIGGER fail_chunks"))
    services.knowledge.add_bytes(b"this will not be stored", "doomed.txt")
    assert footprint(services).documents == 1
