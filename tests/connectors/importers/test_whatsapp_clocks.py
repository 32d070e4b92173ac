"""WhatsApp clocks and locales: every row of the table in docs/importers.md, one fixture each."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from connectors.importers.whatsapp import WhatsAppImporter
from connectors.importers.whatsapp_clock import clock_hour, parse_header

CLOCKS = Path(__file__).parent / "fixtures" / "whatsapp_clocks"
DAY = (2023, 1, 13)

# fixture → (date order, wall-clock times of its messages in file order)
CASES: dict[str, tuple[str, list[tuple[int, ...]]]] = {
    "es_android_midnight.txt": (
        "DMY",
        [
            (2025, 3, 28, 23, 58),
            (2025, 3, 29, 0, 8),
            (2025, 3, 29, 0, 8),
            (2025, 3, 29, 1, 23),
            (2025, 3, 29, 12, 30),
        ],
    ),
    "en_us_ios.txt": ("MDY", [(2023, 1, 13, 21, 15, 7), (2023, 1, 14, 0, 5)]),
    "en_ca_android.txt": ("YMD", [(2023, 12, 20, 5, 46), (2023, 12, 20, 17, 46)]),
    "en_za_android.txt": ("YMD", [(2023, 12, 20, 5, 46), (2023, 12, 20, 17, 46)]),
    "de_vorm_nachm.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "el.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "ja.txt": ("YMD", [(*DAY, 0, 15), (*DAY, 12, 15), (*DAY, 21, 15)]),
    "zh.txt": ("YMD", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "ko.txt": ("YMD", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "hu.txt": ("YMD", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "tr.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "sv.txt": ("YMD", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "fi.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 15), (*DAY, 21, 20, 5)]),
    "cs.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "vi.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "ar.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "bg.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 15)]),
    "invisible_marks.txt": ("DMY", [(*DAY, 9, 15), (*DAY, 21, 16), (*DAY, 21, 17)]),
}


def ms(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp() * 1000)


def test_every_fixture_has_a_case() -> None:
    assert sorted(p.name for p in CLOCKS.iterdir()) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_clock(run, name: str) -> None:
    order, times = CASES[name]
    messages, log = run(WhatsAppImporter(tz=UTC), CLOCKS / name)
    assert not log.rejected, log.rejected
    assert log.details["date order"] == order
    assert [m.timestamp for m in messages] == [ms(*t) for t in times]
    # Sender names come out clean: no direction marks, no marker text left over.
    for m in messages:
        assert m.person.strip() == m.person and m.person[:1].isalpha(), m.person
        assert not m.content.startswith(("-", "]", "PM", "AM", "م", "ч."))


def test_twelve_hour_export_with_midnight_as_hour_zero(run, tmp_path: Path) -> None:
    """The issue's case: `00:08 a. m.` no longer refuses the file; every line imports."""
    messages, log = run(WhatsAppImporter(tz=UTC), CLOCKS / "es_android_midnight.txt")
    assert [m.person for m in messages] == ["Ana", "Luis", "Luis", "Ana", "Luis"]
    assert messages[1].content == "Sí, acá" and messages[1].timestamp == ms(2025, 3, 29, 0, 8)
    assert messages[1].message_id != messages[2].message_id  # same minute, same sender
    assert messages[4].attachments[0].name == "PTT-20250329-WA0001.opus"
    assert not log.rejected


@pytest.mark.parametrize(
    ("hour", "marker", "expected"),
    [
        (0, "am", 0),
        (12, "am", 0),
        (1, "am", 1),
        (0, "pm", 12),
        (12, "pm", 12),
        (11, "pm", 23),
        (15, None, 15),
    ],
)
def test_clock_hour(hour: int, marker: str | None, expected: int) -> None:
    assert clock_hour(hour, marker) == expected


def test_clock_hour_refuses_hours_past_twelve_with_a_marker() -> None:
    with pytest.raises(ValueError, match="hour 13 is impossible with PM"):
        clock_hour(13, "pm")


def test_unknown_marker_is_not_a_header() -> None:
    # A marker outside the table leaves the line unrecognized instead of misreading the hour.
    assert parse_header("13/01/2023, 9:15 xyz - Anna: hi", 1) is None
    assert parse_header("13/01/2023, 9:15 - Emma: hi", 1).rest == "Emma: hi"  # 'em' is not eaten
