"""`/api/files` on real services: list, read, search, write with version checks, refresh, path escapes."""

from __future__ import annotations

import httpx
import pytest

from app.api.app import create_app

TOKEN = "f" * 43
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
async def client(services):
    services.files.refresh()
    app = create_app(services, token=TOKEN)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3415", headers=AUTH) as c:
        yield c


@pytest.mark.anyio
async def test_list_read_and_search(client):
    listed = (await client.get("/api/files", params={"dir": "channels"})).json()
    assert listed["total"] == len(listed["files"]) > 0
    assert {f["folder"] for f in listed["files"]} == {"channels"}
    page = (await client.get("/api/files/channels/slack-launch.md")).json()
    assert page["title"] == "#launch (slack)" and page["version"] and "[[people/anna|anna]]" in page["text"]
    found = (await client.get("/api/files/search", params={"q": "press KIT"})).json()
    assert "channels/slack-launch.md" in [h["path"] for h in found["hits"]]


@pytest.mark.anyio
async def test_put_notes_and_user_text_but_not_the_generated_block(client):
    r = await client.put("/api/files/notes/ideas.md", json={"text": "# Ideas\n- weekly digest\n"})
    assert r.status_code == 200, r.text
    page = (await client.get("/api/files/people/ben.md")).json()
    ok = await client.put(
        "/api/files/people/ben.md",
        json={"text": page["text"] + "Ben: vegetarian\n", "version": page["version"]},
    )
    assert ok.status_code == 200 and ok.json()["text"].endswith("Ben: vegetarian\n")
    stale = await client.put(
        "/api/files/people/ben.md", json={"text": page["text"] + "x\n", "version": page["version"]}
    )
    assert stale.status_code == 409 and "conflict" in stale.json()["hint"]
    inside = page["text"].replace("## People", "## Folks").replace("## Where you talk", "## Where we talk")
    refused = await client.put("/api/files/people/ben.md", json={"text": inside})
    assert refused.status_code == 400 and "markers" in refused.json()["message"]


@pytest.mark.anyio
async def test_refresh_route(client):
    report = (await client.post("/api/files/refresh", json={"path": "people/anna.md"})).json()
    assert report["pages"] == 1 and report["counts"] == {"unchanged": 1}


@pytest.mark.anyio
@pytest.mark.parametrize(
    "raw",
    [
        "/api/files/%2e%2e/strata.sqlite3",
        "/api/files/people/%2e%2e/%2e%2e/api-token",
        "/api/files/%2Fetc%2Fpasswd",
        "/api/files/people%5C..%5C..%5Capi-token",
        "/api/files/notes/.hidden.md",
    ],
)
async def test_path_escapes_are_refused(client, raw):
    for method in ("GET", "PUT"):
        request = client.build_request(method, raw, json={"text": "pwned"} if method == "PUT" else None)
        request.url = request.url.copy_with(raw_path=raw.encode())  # send the path exactly as written
        r = await client.send(request)
        assert r.status_code in (400, 404, 422), (method, raw, r.status_code, r.text)
        assert "pwned" not in r.text


@pytest.mark.anyio
async def test_unknown_file_is_404_with_a_hint(client):
    r = await client.get("/api/files/people/nobody.md")
    assert r.status_code == 404 and "strata files list" in r.json()["hint"]
