"""WhatsApp chat export: Android/iOS layouts, clocks, date-order detection, media, bad files."""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from app.core.errors import InvalidInput
from connectors.importers.base import ImportLog
from connectors.importers.whatsapp import WhatsAppImporter, chat_name_from

ANDROID = "WhatsApp Chat with Trip to Lisbon.txt"


def ms(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp() * 1000)


def test_android_24h_day_first(run, fixtures: Path) -> None:
    messages, log = run(WhatsAppImporter(tz=UTC), fixtures / ANDROID)
    assert log.details["date order"] == "DMY"
    assert log.details["chat"] == "Trip to Lisbon"
    assert log.skipped == {"deleted message": 1}
    assert not log.warnings
    summary = [(m.person, m.content) for m in messages]
    assert summary == [
        (
            "WhatsApp",
            "Messages and calls are end-to-end encrypted. No one outside of this chat, not even "
            "WhatsApp, can read or listen to them. Tap to learn more.",
        ),
        ("WhatsApp", 'Anna created group "Trip to Lisbon"'),
        ("Anna", "Flights are booked!\nLanding 14:05 on the 3rd.\nBring sunscreen"),
        ("Ben", "[media omitted]"),
        ("Ben", "🎉🎉"),
        ("Ben", "[attachment: IMG-20230101-WA0001.jpg]\nFireworks from the roof"),
        ("Carla", "Who has the hotel address?"),
        ("WhatsApp", "Anna added Dmitri"),
    ]
    assert messages[0].metadata["system"] is True
    assert messages[2].timestamp == ms(2022, 12, 31, 23, 59)
    assert messages[2].channel == "Trip to Lisbon"
    assert messages[3].attachments[0].name == "<Media omitted>"
    assert messages[5].attachments[0].name == "IMG-20230101-WA0001.jpg"
    assert messages[6].metadata["edited"] is True
    assert len({m.message_id for m in messages}) == len(messages)
    assert all(m.message_id.startswith("whatsapp:") for m in messages)


def test_ios_12h_month_first_with_seconds(run, fixtures: Path) -> None:
    messages, log = run(WhatsAppImporter(tz=UTC, chat_name="Trip"), fixtures / "_chat_ios.txt")
    assert log.details["date order"] == "MDY"
    assert log.skipped == {"deleted message": 1}
    summary = [(m.person, m.content) for m in messages]
    assert summary == [
        (
            "WhatsApp",
            "Messages and calls are end-to-end encrypted. No one outside of this chat, not even "
            "WhatsApp, can read or listen to them.",
        ),
        ("Anna", "Dinner at 8?"),
        ("Ben", "[image omitted]"),
        ("Ben", "[attachment: 00000012-PHOTO-2023-01-13-21-16-05.jpg]"),
        ("Ben", "same minute, second message"),
        ("Anna", "late night\nsecond line"),
        ("WhatsApp", "Anna added Dmitri"),
    ]
    assert messages[1].timestamp == ms(2023, 1, 13, 21, 15, 40)
    assert messages[5].timestamp == ms(2023, 1, 14, 0, 30)  # 12:30 AM is just after midnight
    assert messages[6].timestamp == ms(2023, 1, 14, 12, 5)  # 12:05 PM is just after noon
    # Same sender, same second: the ordinal keeps the ids apart.
    assert messages[3].message_id != messages[4].message_id


def test_zip_export_and_chat_name(run, fixtures: Path, tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat - Trip.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(fixtures / "_chat_ios.txt", "_chat.txt")
        archive.writestr("00000012-PHOTO-2023-01-13-21-16-05.jpg", b"\xff\xd8")
    zipped, log = run(WhatsAppImporter(tz=UTC), path)
    plain, _ = run(WhatsAppImporter(tz=UTC, chat_name="Trip"), fixtures / "_chat_ios.txt")
    assert log.details["chat"] == "Trip"
    assert zipped == plain


def test_reimport_and_later_export_keep_ids(run, fixtures: Path, tmp_path: Path) -> None:
    full, _ = run(WhatsAppImporter(tz=UTC), fixtures / ANDROID)
    again, _ = run(WhatsAppImporter(tz=UTC), fixtures / ANDROID)
    assert [m.message_id for m in full] == [m.message_id for m in again]
    earlier = tmp_path / ANDROID
    earlier.write_text("\n".join((fixtures / ANDROID).read_text().splitlines()[:7]) + "\n")
    partial, _ = run(WhatsAppImporter(tz=UTC), earlier)
    assert [m.message_id for m in partial] == [m.message_id for m in full[: len(partial)]]


def test_time_zone_is_applied(run, fixtures: Path) -> None:
    (_, _, booked, *_), _ = run(WhatsAppImporter(tz=ZoneInfo("Europe/Lisbon")), fixtures / ANDROID)
    utc, _ = run(WhatsAppImporter(tz=UTC), fixtures / ANDROID)
    assert booked.timestamp == utc[2].timestamp  # Lisbon is UTC in winter
    (_, _, booked_ny, *_), _ = run(WhatsAppImporter(tz=ZoneInfo("America/New_York")), fixtures / ANDROID)
    assert booked_ny.timestamp - utc[2].timestamp == 5 * 3600 * 1000
    assert booked_ny.message_id == utc[2].message_id  # ids use the wall-clock time, not the zone


def write(tmp_path: Path, *lines: str, name: str = "chat.txt") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("line", "order", "expected"),
    [
        ("2023-01-13 21:15 - Anna: hi", "YMD", (2023, 1, 13, 21, 15)),
        ("[2023/01/13, 21:15:07] Anna: hi", "YMD", (2023, 1, 13, 21, 15, 7)),
        ("13.01.23, 21:15 - Anna: hi", "DMY", (2023, 1, 13, 21, 15)),
        ("13-01-2023 21:15 - Anna: hi", "DMY", (2023, 1, 13, 21, 15)),
        ("1/13/23, 9:15 PM - Anna: hi", "MDY", (2023, 1, 13, 21, 15)),
        ("1/13/23, 9:15 p.m. - Anna: hi", "MDY", (2023, 1, 13, 21, 15)),
        ("13/1/2023, 9:15 am - Anna: hi", "DMY", (2023, 1, 13, 9, 15)),
    ],
)
def test_layouts(run, tmp_path: Path, line: str, order: str, expected: tuple[int, ...]) -> None:
    (message,), log = run(WhatsAppImporter(tz=UTC), write(tmp_path, line))
    assert log.details["date order"] == order
    assert message.timestamp == ms(*expected)
    assert (message.person, message.content) == ("Anna", "hi")


def test_order_from_the_whole_file_by_chronology(run, tmp_path: Path) -> None:
    path = write(
        tmp_path, "01/02/2023, 10:00 - A: one", "01/03/2023, 10:00 - A: two", "02/01/2023, 10:00 - A: three"
    )
    messages, log = run(WhatsAppImporter(tz=UTC), path)
    assert log.details["date order"] == "MDY"  # only month-first keeps the file chronological
    assert not log.warnings
    assert messages[2].timestamp == ms(2023, 2, 1, 10, 0)


def test_order_decided_by_a_late_line(run, tmp_path: Path) -> None:
    lines = [f"0{d}/0{d}/2023, 10:00 - A: m{d}" for d in range(1, 10)] + ["12/25/2023, 10:00 - A: xmas"]
    messages, log = run(WhatsAppImporter(tz=UTC), write(tmp_path, *lines))
    assert log.details["date order"] == "MDY"
    assert messages[-1].timestamp == ms(2023, 12, 25, 10, 0)


def test_true_tie_assumes_day_first_and_warns(run, tmp_path: Path) -> None:
    (_message,), log = run(WhatsAppImporter(tz=UTC), write(tmp_path, "05/06/2023, 10:00 - A: hi"))
    assert log.details["date order"] == "DMY"
    assert any("--date-order" in w for w in log.warnings)
    (forced,), log = run(
        WhatsAppImporter(tz=UTC, date_order="mdy"), write(tmp_path, "05/06/2023, 10:00 - A: hi")
    )
    assert forced.timestamp == ms(2023, 5, 6, 10, 0)


# -- malformed input ------------------------------------------------------------------------


def _error(run, path: Path, **kwargs: object) -> str:
    with pytest.raises(InvalidInput) as info:
        run(WhatsAppImporter(tz=UTC, **kwargs), path)
    return str(info.value)


def test_unknown_layout(run, tmp_path: Path) -> None:
    message = _error(run, write(tmp_path, "hello there", "not a chat"))
    assert "chat.txt, line 1" in message and "unknown date layout" in message
    message = _error(run, write(tmp_path, "", "Jan 13 2023 21:15 Anna: hi"))
    assert "line 2" in message


def _reasons(log: ImportLog) -> list[str]:
    return [e.reason for e in log.rejected]


def test_contradicting_dates_skip_the_odd_line(run, tmp_path: Path) -> None:
    path = write(
        tmp_path, "31/01/2023, 10:00 - A: x", "x", "01/31/2023, 10:00 - A: y", "02/02/2023, 10:00 - A: z"
    )
    messages, log = run(WhatsAppImporter(tz=UTC), path)
    assert log.details["date order"] == "DMY"  # fits two headers of three
    assert [m.content for m in messages] == ["x\nx", "z"]
    (reason,) = _reasons(log)
    assert reason.startswith("chat.txt, line 3: impossible date") and "--date-order" in reason
    assert log.rejected[0].line == 3
    assert log.skipped == {"unreadable entry": 1}
    # Only a file where no date fits any order at all is refused whole.
    assert "no message date" in _error(run, write(tmp_path, "13/13/2023, 10:00 - A: x"))


def test_impossible_values_are_reported_and_skipped(run, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "1/12/23, 9:15 PM - A: before",
        "1/13/23, 13:15 PM - A: bad hour",
        "continuation of the bad one",
        "1/14/23, 9:15 AM - A: after",
    )
    messages, log = run(WhatsAppImporter(tz=UTC), path)
    assert [m.content for m in messages] == ["before", "after"]
    (reason,) = _reasons(log)
    assert reason == "chat.txt, line 2: hour 13 is impossible with PM; the message was skipped"
    messages, log = run(
        WhatsAppImporter(tz=UTC), write(tmp_path, "30/02/2023, 10:00 - A: x", "01/03/2023, 10:00 - A: y")
    )
    assert [m.content for m in messages] == ["y"] and "impossible date" in _reasons(log)[0]


def test_invalid_utf8_line_is_reported_and_skipped(run, tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"
    path.write_bytes(
        b"31/12/2022, 23:59 - A: ok\nsecond \xff line\n"
        b"31/12/2022, 23:59 - A: \xff\n31/12/2022, 23:59 - A: fine\n"
    )
    messages, log = run(WhatsAppImporter(tz=UTC), path)
    assert [m.content for m in messages] == ["ok", "fine"]
    reasons = _reasons(log)
    assert reasons[0].startswith("chat.txt, line 2: is not valid UTF-8") and "left out" in reasons[0]
    assert reasons[1].startswith("chat.txt, line 3: is not valid UTF-8") and "skipped" in reasons[1]
    assert any("re-saved in another encoding" in w for w in log.warnings)


def test_stray_lines_before_the_first_message(run, tmp_path: Path) -> None:
    path = write(tmp_path, "Exported by a helper app", "", "31/12/2022, 23:59 - A: ok")
    messages, log = run(WhatsAppImporter(tz=UTC), path)
    assert [m.content for m in messages] == ["ok"]
    assert _reasons(log)[0].startswith("chat.txt, line 1: 'Exported by a helper app' does not start")
    # Ten non-message lines before any header: not a WhatsApp export at all.
    lines = [f"note {n}" for n in range(10)] + ["31/12/2022, 23:59 - A: ok"]
    assert "chat.txt, line 1" in _error(run, write(tmp_path, *lines))


def test_empty_and_bad_order(run, tmp_path: Path) -> None:
    assert "no WhatsApp messages" in _error(run, write(tmp_path, "", ""))
    with pytest.raises(InvalidInput):
        WhatsAppImporter(date_order="DDM")


def test_nothing_is_yielded_before_validation(tmp_path: Path) -> None:
    # Detection reads the whole file first, so an unrecognized file fails before any message.
    path = write(tmp_path, "hello", "31/01/2023, 10:00 - A: x")
    path.write_text("hello\nthere\n" * 6, encoding="utf-8")
    stream = WhatsAppImporter(tz=UTC).messages(path, ImportLog())
    with pytest.raises(InvalidInput):
        next(stream)


def test_chat_name_from_file_names() -> None:
    assert chat_name_from(Path("WhatsApp Chat with Anna.txt")) == "Anna"
    assert chat_name_from(Path("WhatsApp Chat - Team.zip")) == "Team"
    assert chat_name_from(Path("family.txt")) == "family"
