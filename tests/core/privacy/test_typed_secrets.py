"""The shape-and-context scorer: typed passwords with no fixed phrasing, and the prose it leaves alone."""

from __future__ import annotations

import pytest

from app.core.privacy.detector import Detector
from app.core.privacy.typed_secrets import find_typed, shape

DETECTOR = Detector(["secrets"])


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("Pa$$w0rd", "typed"),
        ("Adm!nPg", "strong"),
        ("pa$$word", "strong"),
        ("Hunter2!Hunter", "typed"),
        ("Rover2019", "medium"),
        ("tortilla2023", "medium"),
        ("WiFi6E", None),  # a product name: the capital follows a small letter but one digit, 6 long
        ("iPhone15", None),
        ("SHA256", None),
        ("ZK4Q2P", None),  # capitals and digits: booking codes, SKUs
        ("v2.3.1", None),
        ("0f3a9c2e", None),  # hex: a hash
        ("--region=REGION", None),  # a flag
        ("XTerm*color1", None),
        ("C++11-specific", None),
        ("https://a.example/x1", None),
    ],
)
def test_shape_tells_a_typed_secret_from_ids_versions_and_code(token: str, expected: str | None) -> None:
    assert shape(token) == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I use Pa$$w0rd for the test accounts", "Pa$$w0rd"),
        ("psql -U admin -W then type Adm!nPg", "Adm!nPg"),
        ("password hint: it's Rover2019 lol", "Rover2019"),
        ("I always use Hunter2!Hunter for everything", "Hunter2!Hunter"),
        ("adgangskoden er Hygge#2024", "Hygge#2024"),
        ("סיסמה: Shalom!2024", "Shalom!2024"),
    ],
)
def test_typed_passwords_are_masked_without_a_known_phrasing(text: str, value: str) -> None:
    masked = DETECTOR.mask(text)
    assert value not in masked and "[SECRET:password]" in masked


@pytest.mark.parametrize(
    "text",
    [
        "my password manager on Windows11 crashed",  # no connector between the label and the token
        "Outlook365 password reset took ages",  # a product name modifying the label
        "the new router has WiFi6E and it's fast",
        "I can't log in on my iPhone15",
        "username: jake2024",  # a username, not a password
        "wifi: HomeNet5G",  # a network name
        "my account is rob_1990 on reddit",
        "press enter twice",
        "sudo apt install python3-pip",
        "H&M sale this weekend, AT&T bill is $84",
    ],
)
def test_prose_products_and_names_near_credential_words_are_left_alone(text: str) -> None:
    assert DETECTOR.mask(text) == text


def test_each_finding_explains_itself() -> None:
    (found,) = find_typed("then type Adm!nPg at the prompt")
    assert found.shape == "strong" and found.score >= 3
    assert "strong shape" in found.explain() and "type" in found.explain()
