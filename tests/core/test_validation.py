"""The one ingest rule: every item is repaired or refused with a reason, never a crash (fuzzed)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core import aaak
from app.core.domain import Attachment
from app.core.errors import InvalidInput
from app.core.jsonl import parse_jsonl
from app.core.sanitize import repair_text
from app.core.validation import MAX_METADATA_DEPTH, clean_message
from tests.conftest import make_message

LIMIT = 10 * 1024 * 1024


def nested(depth: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_lone_surrogates_are_repaired_everywhere_and_pairs_joined() -> None:
    raw = make_message(
        content="bad \ud800 here, half an emoji \ud83d, a whole one \ud83d\ude00",
        channel="gen\udc00eral",
        person="an\ud800na",
        metadata={"k\ud800": ["v\udfff", {"deep": "x\ud800"}]},
        attachments=(Attachment(name="f\ud800.png"),),
    )
    msg = clean_message(raw, max_bytes=LIMIT)
    assert msg.content == "bad \ufffd here, half an emoji \ufffd, a whole one 😀"
    assert (msg.channel, msg.person, msg.attachments[0].name) == (
        "gen\ufffderal",
        "an\ufffdna",
        "f\ufffd.png",
    )
    assert msg.metadata == {"k\ufffd": ["v\ufffd", {"deep": "x\ufffd"}]}
    json.dumps(msg.metadata, ensure_ascii=False).encode("utf-8")  # storable
    aaak.content_hash(msg.content)  # the crash of the issue: UnicodeEncodeError here


def test_control_characters_leave_one_line_fields_and_text() -> None:
    msg = clean_message(
        make_message(content="a\x00b\x1bc\u200b", channel="gen\neral\x07", person="\tanna "), max_bytes=LIMIT
    )
    assert (msg.content, msg.channel, msg.person) == ("abc", "gen eral", "anna")


def test_deep_metadata_is_refused_with_a_reason_not_a_recursion_error() -> None:
    with pytest.raises(InvalidInput, match="nested more than 32 levels"):
        clean_message(make_message(metadata=nested(3000)), max_bytes=LIMIT)
    ok = clean_message(make_message(metadata=nested(MAX_METADATA_DEPTH - 2)), max_bytes=LIMIT)
    assert "a" in ok.metadata


def test_size_limits_name_the_field() -> None:
    with pytest.raises(InvalidInput, match="'channel' is 5000 characters"):
        clean_message(make_message(channel="c" * 5000), max_bytes=LIMIT)
    with pytest.raises(InvalidInput, match="more than 10000 values"):
        clean_message(make_message(metadata={"many": list(range(20_000))}), max_bytes=LIMIT)
    with pytest.raises(InvalidInput, match="per-message limit"):
        clean_message(make_message(content="x" * 2000), max_bytes=1000)


def test_non_json_metadata_values_become_storable() -> None:
    msg = clean_message(
        make_message(metadata={"nan": float("nan"), 3: "int key", "t": (1, 2), "o": object}), max_bytes=LIMIT
    )
    assert msg.metadata["nan"] is None and msg.metadata["3"] == "int key" and msg.metadata["t"] == [1, 2]
    json.dumps(msg.metadata, allow_nan=False)


def test_jsonl_reports_deep_json_and_wrong_types_by_line() -> None:
    good = {"platform": "note", "message_id": "1", "timestamp": 1_700_000_000_000, "content": "ok"}
    lines = [
        json.dumps(good),
        '{"platform":"note","message_id":"2","timestamp":1,"content":"x","metadata":'
        + '{"a":' * 3000
        + "1"
        + "}" * 3000
        + "}",
        json.dumps({**good, "message_id": "3", "platform": {"nested": 1}}),
        json.dumps({**good, "message_id": "4", "attachments": [{"name": "a", "sizeBytes": "big"}]}),
        json.dumps({**good, "message_id": "5", "timestamp": "9" * 5000}),
        json.dumps({**good, "message_id": "6", "importance_score": 10**400}),
    ]
    items = list(parse_jsonl(lines))
    errors = {i.line: i.reason for i in items if not hasattr(i, "platform")}
    assert set(errors) == {2, 3, 4, 5}
    assert "nested too deeply" in errors[2] and "'platform' must be text" in errors[3]
    assert "sizeBytes" in errors[4] and "timestamp" in errors[5]
    stored = [i for i in items if hasattr(i, "platform")]
    assert [(m.message_id, m.line) for m in stored] == [("1", 1), ("6", 6)]


# -- fuzz: any JSON-ish item is either cleaned into something storable or refused with a reason --
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
# Text with lone surrogates and control characters mixed in (st.text() avoids surrogates).
nasty_text = st.lists(
    st.one_of(
        st.text(max_size=10), st.sampled_from(["\ud800", "\udfff", "\ud83d", "\x00", "\x1b", "\u200b"])
    ),
    max_size=6,
).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    item=st.fixed_dictionaries(
        {},
        optional={
            "platform": st.one_of(nasty_text, json_values),
            "message_id": st.one_of(nasty_text, json_values),
            "channel": st.one_of(nasty_text, json_values),
            "person": nasty_text,
            "timestamp": st.one_of(st.integers(), st.text(max_size=30), json_values),
            "content": st.one_of(nasty_text, json_values),
            "attachments": json_values,
            "metadata": json_values,
            "importance_score": json_values,
        },
    )
)
def test_fuzz_any_item_is_cleaned_or_refused_with_a_reason(item: dict) -> None:
    line = json.dumps(item)  # ensure_ascii: lone surrogates travel as \ud800, as in real files
    for parsed in parse_jsonl([line]):
        if not hasattr(parsed, "platform"):
            assert parsed.reason and parsed.line == 1
            continue
        try:
            msg = clean_message(parsed, max_bytes=LIMIT)
        except InvalidInput as exc:
            assert str(exc)
            continue
        for text in (msg.content, msg.platform, msg.message_id, msg.channel, msg.person):
            text.encode("utf-8")
        json.dumps(msg.metadata, ensure_ascii=False, allow_nan=False).encode("utf-8")
        aaak.content_hash(msg.content)


@given(st.text() | nasty_text)
def test_repair_text_always_encodes_and_keeps_valid_text(text: str) -> None:
    repaired = repair_text(text)
    repaired.encode("utf-8")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert repaired == text
