"""Size limit and zip-bomb guards refuse before any parser runs."""

from __future__ import annotations

import kbfiles
import pytest

from app.core.errors import PayloadTooLarge, UnreadableDocument
from knowledge_base.guards import DEFAULT_LIMITS, Limits, check_size, check_zip


def test_default_limits_follow_the_issue():
    assert DEFAULT_LIMITS.max_file_bytes == 100 * 1024 * 1024


def test_size_limit_names_file_and_sizes():
    check_size(100 * 1024 * 1024, "ok.pdf")
    with pytest.raises(PayloadTooLarge) as info:
        check_size(100 * 1024 * 1024 + 1, "big.pdf")
    assert "big.pdf" in str(info.value) and "100.0 MB limit" in str(info.value)
    with pytest.raises(PayloadTooLarge, match=r"2.0 KB is over the 1.0 KB"):
        check_size(2048, "x.txt", Limits(max_file_bytes=1024))


def test_genuine_packages_pass():
    check_zip(kbfiles.docx_bytes([("p", "hello")]), "a.docx")
    check_zip(kbfiles.pptx_bytes([("t", ["b"], "n")]), "a.pptx")
    check_zip(kbfiles.xlsx_bytes({"S": [[1, 2]]}), "a.xlsx")


def test_high_ratio_member_is_a_bomb_under_default_limits():
    bomb = kbfiles.with_extra_members(
        kbfiles.docx_bytes([("p", "x")]), {"word/media/zero.bin": b"\0" * (4 << 20)}
    )
    with pytest.raises(
        PayloadTooLarge, match=r"bomb.docx: member 'word/media/zero.bin' compresses .*zip bomb"
    ):
        check_zip(bomb, "bomb.docx")


def test_total_uncompressed_cap():
    package = kbfiles.with_extra_members(
        kbfiles.xlsx_bytes({"S": [[1]]}), {"xl/big.bin": bytes(range(256)) * 4096}
    )
    with pytest.raises(PayloadTooLarge, match=r"inflates to more than 512.0 KB"):
        check_zip(package, "big.xlsx", Limits(max_zip_uncompressed_bytes=512 * 1024))


def test_entry_count_cap():
    package = kbfiles.with_extra_members(kbfiles.pptx_bytes([("t", ["b"], None)]), {}, count=60)
    with pytest.raises(PayloadTooLarge, match=r"entries, over the 50 limit"):
        check_zip(package, "many.pptx", Limits(max_zip_entries=50))


def test_unreadable_zip():
    with pytest.raises(UnreadableDocument, match=r"x.docx: corrupt zip"):
        check_zip(b"PK\x03\x04garbage", "x.docx")
