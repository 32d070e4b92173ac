"""AAAK encoding and the versioned FNV-64a hash."""

from app.core import aaak
from app.core.domain import Attachment


def test_fnv1a_64_known_vectors() -> None:
    # Reference values of 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
    assert aaak.fnv1a_64(b"") == 0xCBF29CE484222325
    assert aaak.fnv1a_64(b"a") == 0xAF63DC4C8601EC8C
    assert aaak.fnv1a_64(b"foobar") == 0x85944171F73967E8


def test_fnv1a_64_hand_computed_two_bytes() -> None:
    # By hand: h = ((offset ^ 0x61) * prime) mod 2^64, then ((h ^ 0x62) * prime) mod 2^64.
    prime, mask = 0x100000001B3, (1 << 64) - 1
    h = ((0xCBF29CE484222325 ^ 0x61) * prime) & mask
    h = ((h ^ 0x62) * prime) & mask
    assert aaak.fnv1a_64(b"ab") == h == 0x089C4407B545986A


def test_content_hash_is_versioned() -> None:
    doc = "Text: hi"
    assert aaak.content_hash(doc) == f"{aaak.fnv1a_64(b'memory-record-embedding-text-v1:Text: hi'):016x}"
    assert aaak.content_hash(doc) != f"{aaak.fnv1a_64(doc.encode()):016x}"
    assert len(aaak.content_hash(doc)) == 16


def test_document_layout_and_whitespace() -> None:
    enc = aaak.encode_record(
        content="  hello\n\n  world\tagain ",
        timestamp=1700000000000,
        tier="short",
        platform="slack",
        channel="general",
        person="anna",
        bot_id="U1",
        attachments=[Attachment(name="deck.pdf", url="https://x/deck.pdf"), Attachment(name="a.png")],
        metadata={"b": 1, "a": {"y": "two  words", "x": True, "__private": 1}, "__raw": "skip"},
    )
    assert enc.document.split("\n") == [
        "Text: hello world again",
        "Time: 1700000000000",
        "Tier: short",
        "Media: https://x/deck.pdf, a.png",
        "Dimensions: platform: slack; channel: general; person: anna; botId: U1",
        "Metadata: a.x: true; a.y: two words; b: 1",
    ]
    assert enc.text == "hello world again"


def test_empty_media_and_dimensions() -> None:
    enc = aaak.encode_record(content="x", timestamp=1, tier="mid")
    lines = enc.document.split("\n")
    assert lines[3:] == ["Media: none", "Dimensions: ", "Metadata: "]


def test_metadata_flattened_two_levels_only() -> None:
    pairs = aaak.flatten_metadata({"z": {"deep": {"deeper": 1}}, "a": [1, 2]})
    assert pairs == [("a", "[1, 2]"), ("z.deep", '{"deeper": 1}')]


def test_smart_truncation_prefers_sentence_boundary() -> None:
    text = ("word " * 1300) + "End of sentence. " + ("tail " * 600)
    out = aaak.smart_truncate(text)
    assert len(out) <= aaak.MAX_TEXT_CHARS
    assert len(out) >= aaak.MAX_TEXT_CHARS * aaak.SMART_BOUNDARY_FRACTION
    assert not out.endswith(" ")


def test_truncation_cuts_hard_without_boundary() -> None:
    text = "x" * 9000
    assert aaak.smart_truncate(text) == "x" * 8000


def test_truncation_keeps_sentence_end_in_window() -> None:
    text = "a" * 7000 + ". " + "b" * 2000
    assert aaak.smart_truncate(text) == "a" * 7000 + "."


def test_hash_changes_with_tier() -> None:
    a = aaak.encode_record(content="same", timestamp=1, tier="short")
    b = aaak.encode_record(content="same", timestamp=1, tier="mid")
    assert a.content_hash != b.content_hash
