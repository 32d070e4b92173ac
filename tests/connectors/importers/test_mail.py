"""mbox/.eml import: RFC 2047 headers, multipart preference, HTML, charsets, threading."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.core.errors import InvalidInput
from connectors.importers.mail import EmailImporter, html_to_text, message_ids


def test_mbox(run, fixtures: Path) -> None:
    messages, log = run(EmailImporter(), fixtures / "inbox.mbox")
    assert log.details["layout"] == "mbox"
    root, reply, html_only, no_id, undated = messages

    assert root.message_id == "email:root-1@example.org"
    assert root.person == "Anna Pétrova"  # RFC 2047 base64 display name
    assert root.content.startswith("Subject: Budget réview for Q2\nHi all,")
    assert "Please send numbers by Wednesday." in root.content
    assert "HTML VERSION" not in root.content  # text/plain wins over html
    assert root.timestamp == int(datetime(2023, 3, 6, 9, 0, tzinfo=UTC).timestamp() * 1000)
    assert root.metadata["to"] == ["team@example.org", "bob@example.org"]
    assert root.metadata["from"] == "anna@example.org"

    # The whole thread shares the root Message-ID as its channel.
    assert {m.channel for m in (root, reply, html_only)} == {"root-1@example.org"}
    assert reply.metadata["in_reply_to"] == "root-1@example.org"
    assert "Café meeting afterwards?" in reply.content  # latin-1 body decoded
    assert reply.content.startswith("Subject: Re: Budget réview for Q2")
    assert reply.attachments[0].name == "q2.xls"
    assert reply.attachments[0].size_bytes == 10
    assert reply.content.endswith("[attachment: q2.xls]")

    assert html_only.person == "carol@example.org"
    assert "Count me in.\n\nSee you&there" in html_only.content
    assert "alert" not in html_only.content and "color" not in html_only.content

    # An unknown charset falls back instead of failing; no Message-ID gets a stable derived one.
    assert "café notes" in no_id.content
    assert no_id.message_id.startswith("email:") and no_id.message_id.endswith("@strata.invalid")
    assert no_id.channel == no_id.message_id.removeprefix("email:")
    assert any("Message-ID" in w for w in log.warnings)
    # No Date header: the mbox separator line supplies it.
    assert undated.timestamp == int(datetime(2023, 3, 9, 12, 0, tzinfo=UTC).timestamp() * 1000)


def test_reimport_gives_same_ids(run, fixtures: Path) -> None:
    first, _ = run(EmailImporter(), fixtures / "inbox.mbox")
    second, _ = run(EmailImporter(), fixtures / "inbox.mbox")
    assert [m.message_id for m in first] == [m.message_id for m in second]


def test_single_eml_and_folder(run, fixtures: Path, tmp_path: Path) -> None:
    (message,), log = run(EmailImporter(), fixtures / "single.eml")
    assert log.details["layout"] == "eml"
    assert (message.message_id, message.person, message.channel) == (
        "email:solo@example.net",
        "Zoë",
        "solo@example.net",
    )
    assert message.timestamp == int(datetime(2023, 3, 10, 14, 45, tzinfo=UTC).timestamp() * 1000)
    (tmp_path / "a.eml").write_bytes((fixtures / "single.eml").read_bytes())
    (tmp_path / "b.mbox").write_bytes((fixtures / "inbox.mbox").read_bytes())
    (tmp_path / "notes.txt").write_text("ignored")
    messages, _ = run(EmailImporter(), tmp_path)
    assert len(messages) == 6


def test_helpers() -> None:
    assert message_ids("<a@b> <c@d>") == ["a@b", "c@d"]
    assert message_ids("bare@id") == ["bare@id"]
    assert message_ids("  ") == []
    assert html_to_text("<p>a</p><p>b&amp;c</p><br>d") == "a\n\nb&c\n\nd"


def _error(run, path: Path) -> str:
    with pytest.raises(InvalidInput) as info:
        run(EmailImporter(), path)
    return str(info.value)


def test_missing_date_without_mbox_line(run, tmp_path: Path) -> None:
    path = tmp_path / "x.eml"
    path.write_bytes(b"Message-ID: <x@y>\nFrom: a@b\nSubject: s\n\nbody\n")
    messages, log = run(EmailImporter(), path)
    assert messages == [] and [e.reason for e in log.rejected] == [
        "x.eml: has no readable Date header; skipped"
    ]


def test_mbox_entry_is_named(run, tmp_path: Path) -> None:
    path = tmp_path / "box.mbox"
    path.write_bytes(
        b"From a@b Mon Mar  6 09:00:00 2023\nMessage-ID: <1@y>\n"
        b"Date: Mon, 06 Mar 2023 10:00:00 +0000\n\nok\n\n"
        b"From a@b garbage-date\nMessage-ID: <2@y>\nDate: not a date\n\nbad\n"
    )
    messages, log = run(EmailImporter(), path)
    assert [m.content for m in messages] == ["ok"]
    assert [e.reason for e in log.rejected] == ["box.mbox, message 2: has no readable Date header; skipped"]


def test_not_an_email(run, tmp_path: Path) -> None:
    path = tmp_path / "x.eml"
    path.write_text("just some text\n")
    assert "not an e-mail" in _error(run, path)
    folder = tmp_path / "empty"
    folder.mkdir()
    assert "no .eml or .mbox" in _error(run, folder)
