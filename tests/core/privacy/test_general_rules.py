"""Rules that read structure rather than a phrasing: seed phrases by word list, tables by header."""

from __future__ import annotations

import pytest

from app.core.privacy.detector import Detector
from app.core.privacy.seed_phrases import find_seed_phrases
from app.core.privacy.tables import find_table_secrets

DETECTOR = Detector(["secrets"])
SEED = "legal winner thank year wave sausage worth useful legal winner thank yellow"  # BIP-39 test vector


@pytest.mark.parametrize(
    "text",
    [
        f"writing this down before I lose it: {SEED}",
        "1. " + " ".join(f"{w} {i}." for i, w in enumerate(SEED.split(), 2)).rsplit(" ", 1)[0],
        f'mnemonic = "{SEED}"',
    ],
)
def test_an_unlabelled_seed_phrase_is_masked_whole(text: str) -> None:
    masked = DETECTOR.mask(text)
    assert "[SECRET:seed-phrase]" in masked and "sausage" not in masked and "winner" not in masked


@pytest.mark.parametrize(
    "text",
    [
        "we went to the park and then had lunch at the new place by the river with the kids",
        "sign sign sign sign sign sign sign sign sign sign sign sign sign",  # one word repeated
        "Abandon ability able about above absent absorb abstract absurd abuse access acid",  # capitals
    ],
)
def test_ordinary_runs_of_words_are_not_seed_phrases(text: str) -> None:
    assert find_seed_phrases(text) == []


def test_a_password_column_is_masked_in_every_row() -> None:
    csv = "username,password,site\nj.doe,Ledger&Quill8,billing.example.com\nkim,hunter22x,mail.test\n\nnext"
    masked = DETECTOR.mask(csv)
    assert masked.splitlines()[1:3] == [
        "j.doe,[SECRET:password],billing.example.com",
        "kim,[SECRET:password],mail.test",
    ]
    markdown = (
        "| site | user | Passwort |\n|---|---|---|\n| gmail | me | Tr0ub4dor&3 |\n| bank | me | (ask) |"
    )
    assert DETECTOR.mask(markdown).splitlines()[2] == "| gmail | me | [SECRET:password] |"
    assert "(ask)" in DETECTOR.mask(markdown)  # an aside, not a value


@pytest.mark.parametrize("text", ["id,token_count\n1,4096", "name;age\nbob;42", "password,strength\n,weak"])
def test_tables_without_credential_values_are_left_alone(text: str) -> None:
    assert find_table_secrets(text) == []
    assert DETECTOR.mask(text) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("her mobile +44 7700 900 731", "her mobile [PHONE]"),  # a + prefix, in a range held unassigned
        ("mon portable c'est le 06 12 48 97 35", "mon portable c'est le [PHONE]"),  # after a phone word
        ("build 3.8.1+20240301 passed", "build 3.8.1+20240301 passed"),  # a + glued to a version
        ("ring 020 7946 0958 tomorrow", "ring 020 7946 0958 tomorrow"),  # no phone word: regions decide
    ],
)
def test_phone_numbers_by_prefix_or_phone_word(text: str, masked: str) -> None:
    assert Detector(["phones"]).mask(text) == masked
