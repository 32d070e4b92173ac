"""`/api/kb/*` in-process (httpx ASGI transport) on real services and real generated files."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from app.bootstrap import build_services
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, KnowledgeBaseSettings, Settings

create_app = pytest.importorskip(
    "app.api.app", reason="the REST app factory lands with the api branch"
).create_app
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "knowledge_base"))
import kbfiles  # noqa: E402
from kbstate import footprint  # noqa: E402

TOKEN = "k" * 43
AUTH = {"Authorization": f"Bearer {TOKEN}"}
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _client(services):
    app = create_app(services, token=TOKEN)
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:3415", headers=AUTH
    )


@pytest.fixture
async def client(services):
    async with await _client(services) as c:
        yield c


@pytest.mark.anyio
async def test_upload_list_get_search_delete(client, services):
    data = kbfiles.docx_bytes([("h1", "Budget"), ("p", "The lemur budget is 12 000 euros.")], title="Budget")
    r = await client.post("/api/kb/documents", files={"file": ("budget.docx", data, DOCX)})
    assert r.status_code == 201, r.text
    doc = r.json()
    assert doc["fileName"] == "budget.docx" and doc["contentType"] == DOCX and doc["totalChunks"] == 1
    assert doc["metadata"]["title"] == "Budget" and doc["sizeBytes"] == len(data)

    listed = (await client.get("/api/kb/documents")).json()
    assert listed["total"] == 1 and listed["documents"][0]["id"] == doc["id"]

    full = (await client.get(f"/api/kb/documents/{doc['id']}")).json()
    assert "The lemur budget is 12 000 euros." in full["content"] and full["fileName"] == "budget.docx"

    found = (await client.post("/api/kb/search", json={"query": "lemur budget"})).json()
    assert found["query"] == "lemur budget"
    assert found["hits"][0]["documentId"] == doc["id"] and found["hits"][0]["heading"] == "Budget"
    filtered = await client.post("/api/kb/search", json={"query": "lemur", "documentIds": ["nope"]})
    assert filtered.status_code == 404 and filtered.json()["error"] == "not_found"

    r = await client.delete(f"/api/kb/documents/{doc['id']}")
    assert r.status_code == 200 and r.json() == {"deleted": doc["id"], "fileName": "budget.docx"}
    assert (await client.get(f"/api/kb/documents/{doc['id']}")).status_code == 404
    assert footprint(services).empty


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "make", "status", "code"),
    [
        ("scan.pdf", kbfiles.image_only_pdf_bytes, 400, "unreadable_document"),
        ("locked.pdf", kbfiles.encrypted_pdf_bytes, 400, "unreadable_document"),
        ("photo.png", lambda: b"\x89PNG\r\n\x1a\n" + b"\0" * 64, 415, "unsupported_format"),
        ("talk.key", lambda: kbfiles.iwork_bytes(None), 415, "unsupported_format"),
        (
            "bomb.xlsx",
            lambda: kbfiles.with_extra_members(
                kbfiles.xlsx_bytes({"S": [[1]]}), {"xl/z.bin": b"\0" * (4 << 20)}
            ),
            413,
            "payload_too_large",
        ),
    ],
)
async def test_bad_uploads_map_to_statuses_and_store_nothing(client, services, name, make, status, code):
    r = await client.post("/api/kb/documents", files={"file": (name, make(), "application/octet-stream")})
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error"] == code and body["message"].startswith(f"{name}: ")
    assert footprint(services).empty


@pytest.mark.anyio
async def test_duplicate_is_409(client):
    files = {"file": ("a.txt", b"duplicate me", "text/plain")}
    assert (await client.post("/api/kb/documents", files=files)).status_code == 201
    r = await client.post("/api/kb/documents", files={"file": ("b.txt", b"duplicate me", "text/plain")})
    assert r.status_code == 409 and r.json()["error"] == "conflict"


@pytest.mark.anyio
async def test_size_limit_from_settings(tmp_path, clock):
    settings = Settings(
        data_dir=tmp_path / "d",
        embedding=EmbeddingSettings(provider="hashing"),
        kb=KnowledgeBaseSettings(max_file_bytes=1000),
    )
    services = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        async with await _client(services) as client:
            r = await client.post(
                "/api/kb/documents", files={"file": ("big.txt", b"w " * 1000, "text/plain")}
            )
            assert r.status_code == 413 and r.json()["message"].startswith("big.txt: ")
            assert footprint(services).empty
    finally:
        services.close()


@pytest.mark.anyio
async def test_character_limit_from_settings(tmp_path, clock):
    settings = Settings(
        data_dir=tmp_path / "d",
        embedding=EmbeddingSettings(provider="hashing"),
        kb=KnowledgeBaseSettings(max_extracted_chars=1000),
    )
    services = build_services(settings, clock=clock, embedder=HashingEmbedder())
    try:
        async with await _client(services) as client:
            r = await client.post(
                "/api/kb/documents", files={"file": ("long.txt", b"w " * 1000, "text/plain")}
            )
            body = r.json()
            assert r.status_code == 413 and body["error"] == "payload_too_large"
            assert body["message"] == "long.txt: this document has 2,000 characters; the limit is 1,000"
            assert "kb.max_extracted_chars" in body["hint"]
            assert footprint(services).empty
    finally:
        services.close()


@pytest.mark.anyio
async def test_routes_need_the_token(client):
    r = await client.get("/api/kb/documents", headers={"Authorization": ""})
    assert r.status_code == 401
