"""`/api/files` over real HTTP on 127.0.0.1: secrets masked unless revealed, and a masked read
written back can never replace the stored secrets with placeholders."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from app.api.app import create_app
from app.api.server import BackgroundServer
from app.bootstrap import Services

TOKEN = "s" * 43
SECRET_NOTE = "# Staging\n\nServer password is hunter2\nkey AKIAIOSFODNN7EXAMPLE\nask jane@example.com\n"
PATH = "notes/staging.md"


@pytest.fixture
def client(services: Services) -> Iterator[httpx.Client]:
    services.files.write(PATH, SECRET_NOTE)
    with (
        BackgroundServer(create_app(services, token=TOKEN)) as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as c,
    ):
        yield c


def test_read_and_search_are_masked_by_default(client: httpx.Client) -> None:
    page = client.get(f"/api/files/{PATH}").json()
    assert page["masked"] is True
    assert "[SECRET:password]" in page["text"] and "[SECRET:aws-key]" in page["text"]
    assert "[EMAIL]" in page["text"]
    found = client.get("/api/files/search", params={"q": "password"})
    assert found.status_code == 200
    assert not any(word in found.text for word in ("hunter2", "AKIAIOSFODNN7EXAMPLE", "jane@example.com"))
    hit = next(h for h in found.json()["hits"] if h["path"] == PATH)
    assert hit["masked"] is True and any("[SECRET:" in s["text"] for s in hit["snippets"])


def test_reveal_is_refused_without_the_setting(client: httpx.Client) -> None:
    for route, params in ((f"/api/files/{PATH}", {}), ("/api/files/search", {"q": "staging"})):
        refused = client.get(route, params={**params, "reveal": "true"})
        assert refused.status_code == 400, (route, refused.text)
        assert refused.json()["error"] == "invalid_input" and "allow_reveal" in refused.json()["hint"]
        assert "hunter2" not in refused.text


def test_a_masked_read_written_back_is_refused_and_loses_nothing(
    client: httpx.Client, services: Services
) -> None:
    page = client.get(f"/api/files/{PATH}").json()
    refused = client.put(
        f"/api/files/{PATH}", json={"text": page["text"] + "- rotate keys\n", "version": page["version"]}
    )
    assert refused.status_code == 409, refused.text
    body = refused.json()
    assert body["error"] == "conflict" and "placeholders" in body["message"]
    assert "[SECRET:" in body["message"] and "reveal=true" in body["hint"]
    assert services.files.read(PATH).text == SECRET_NOTE  # the secrets are still on disk
    # Without `version` (a blind overwrite) the guard holds too.
    assert client.put(f"/api/files/{PATH}", json={"text": page["text"]}).status_code == 409
    assert services.files.read(PATH).text == SECRET_NOTE


def test_secret_free_files_edit_as_before(client: httpx.Client, services: Services) -> None:
    created = client.put("/api/files/notes/ideas.md", json={"text": "# Ideas\n- weekly digest\n"})
    assert created.status_code == 200 and created.json()["masked"] is False
    page = client.get("/api/files/notes/ideas.md").json()
    assert page["masked"] is False
    edited = client.put(
        "/api/files/notes/ideas.md", json={"text": page["text"] + "- dark mode\n", "version": page["version"]}
    )
    assert edited.status_code == 200 and edited.json()["text"].endswith("- dark mode\n")
    # A placeholder the stored file already holds verbatim (the user wrote it) does not block an edit.
    doc = "# Masking\nSecrets show as [SECRET:password] and [EMAIL].\n"
    assert client.put("/api/files/notes/masking.md", json={"text": doc}).status_code == 200
    again = client.get("/api/files/notes/masking.md").json()
    assert again["masked"] is False and again["text"] == doc
    assert client.put("/api/files/notes/masking.md", json={"text": doc + "ok\n"}).status_code == 200


def test_a_revealed_read_and_put_keeps_the_secret(client: httpx.Client, services: Services) -> None:
    services.settings.privacy.allow_reveal = True
    page = client.get(f"/api/files/{PATH}", params={"reveal": "true"}).json()
    assert page["masked"] is False and page["text"] == SECRET_NOTE
    found = client.get("/api/files/search", params={"q": "hunter2", "reveal": "true"}).json()
    assert any("hunter2" in s["text"] for h in found["hits"] for s in h["snippets"])
    text = page["text"] + "- rotate keys\n"
    saved = client.put(f"/api/files/{PATH}", json={"text": text, "version": page["version"]})
    assert saved.status_code == 200, saved.text
    assert saved.json()["masked"] is True and "hunter2" not in saved.text  # the answer is masked ...
    assert services.files.read(PATH).text == text  # ... the file keeps the secret verbatim
    shown = client.put(
        f"/api/files/{PATH}",
        params={"reveal": "true"},
        json={"text": text + "x\n", "version": saved.json()["version"]},
    )
    assert shown.status_code == 200 and shown.json()["text"] == text + "x\n"
