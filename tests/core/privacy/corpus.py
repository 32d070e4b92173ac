"""A labelled corpus for the redactor: chat lines with secrets (and what must vanish), and look-alikes.

Every value here is fake: AWS's documented example keys, made-up tokens of the right shape, test
card numbers and IBANs from the issuers' documentation. The benchmark (tests/benchmarks/
bench_redaction.py) prints precision and recall on it; the tests hold the goals.
"""

from __future__ import annotations

# (text, the substrings that must not survive masking, the class expected)
SECRETS: list[tuple[str, tuple[str, ...], str]] = [
    ("here is the key AKIAIOSFODNN7EXAMPLE for staging", ("AKIAIOSFODNN7EXAMPLE",), "aws-key"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ("wJalrXUtnFEMI/K7MDENG",),
        "password",
    ),
    ("temporary creds ASIAY34FZKBOKMUTVV7A expire at noon", ("ASIAY34FZKBOKMUTVV7A",), "aws-key"),
    (
        "use ghp_16C7e42F292c6912E7710c838347Ae178B4a for the CI",
        ("ghp_16C7e42F292c6912E7710c838347Ae178B4a",),
        "github-token",
    ),
    (
        "token: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
        ("github_pat_11ABCDEFG",),
        "github-token",
    ),
    (
        "slack bot xoxb-2048123456-4096123456789-AbCdEfGhIjKlMnOpQrStUvWx works",
        ("xoxb-2048123456",),
        "slack-token",
    ),
    (
        "my user token xoxp-1234567890-1234567890-1234567890-abcdef0123456789abcdef0123456789",
        ("xoxp-1234567890",),
        "slack-token",
    ),
    (
        "webhook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        ("T00000000/B00000000",),
        "slack-webhook",
    ),
    (
        "OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh",
        ("sk-proj-Ab3dEf6h",),
        "openai-key",
    ),
    (
        "the old key sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh1234 was revoked",
        ("sk-Ab3dEf6h",),
        "openai-key",
    ),
    (
        "maps key AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW please",
        ("AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",),
        "google-key",
    ),
    ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc in prod", ("sk_live_4eC39HqLyjWDarjtT1zdp7dc",), "stripe-key"),
    ("test with rk_test_51H8abcdEFGHijklMNOPqrst0123", ("rk_test_51H8abcd",), "stripe-key"),
    (
        "auth header eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        ("SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",),
        "jwt",
    ),
    (
        "key file:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Adq\n"
        "-----END RSA PRIVATE KEY-----\nthanks",
        ("MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Adq",),
        "private-key",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ (pasted half)",
        ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",),
        "private-key",
    ),
    ("Server password is hunter2", ("hunter2",), "password"),
    ("the wifi password: Tr0ub4dor&3", ("Tr0ub4dor&3",), "password"),
    ("DB_PASSWORD=correct-horse-battery-staple", ("correct-horse-battery-staple",), "password"),
    (
        'config: {"api_key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"}',
        ("9f8e7d6c5b4a39281706f5e4d3c2b1a0",),
        "password",
    ),
    (
        "curl -H 'Authorization: Bearer abcDEF123456ghiJKL789mno' https://api.example.com",
        ("abcDEF123456ghiJKL789mno",),
        "bearer-token",
    ),
    ("connect to postgres://admin:s3cr3tP4ss@db.internal:5432/prod", ("s3cr3tP4ss",), "url-password"),
    ("root pwd is Zx9!qw", ("Zx9!qw",), "password"),
    ("the deploy token was 7Hq2LmX9pR4vT8kW1nB6 yesterday", ("7Hq2LmX9pR4vT8kW1nB6",), "password"),
    ("client_secret: 'q8ZtR3vN7mK1pL5xW9cB2dF6'", ("q8ZtR3vN7mK1pL5xW9cB2dF6",), "password"),
    (
        "telegram bot 123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0 is live",
        ("AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0",),
        "telegram-bot-token",
    ),
    (
        "new api key for the vendor, store it: 5uP3rR4nd0mK3yV4lu3Zq8Wx",
        ("5uP3rR4nd0mK3yV4lu3Zq8Wx",),
        "high-entropy",
    ),
    ("pay with 4111 1111 1111 1111 exp 12/29", ("4111 1111 1111 1111",), "card"),
    ("amex 378282246310005 works", ("378282246310005",), "card"),
    ("mastercard 5555-5555-5555-4444", ("5555-5555-5555-4444",), "card"),
    ("transfer to DE89 3704 0044 0532 0130 00 by Friday", ("DE89 3704 0044 0532 0130 00",), "iban"),
    ("IBAN GB82WEST12345698765432 (Barclays)", ("GB82WEST12345698765432",), "iban"),
    ("write to jane.doe@example.com about it", ("jane.doe@example.com",), "email"),
    ("cc ops+alerts@corp.example.co.uk", ("ops+alerts@corp.example.co.uk",), "email"),
    ("call me on +1 415 555 0132 after 6", ("415 555 0132",), "phone"),
    ("my cell is (650) 253-0000", ("253-0000",), "phone"),
    ("UK office +44 20 7946 0958", ("7946 0958",), "phone"),
    ("Berlin: +49 30 901820", ("901820",), "phone"),
]

# Ordinary chat that must come out unchanged.
LOOK_ALIKES: list[str] = [
    "released v2.14.3 yesterday, see https://github.com/acme/app/releases/tag/v2.14.3",
    "fixed in commit 3f2a9c1e0b8d7f6a5c4b3a29180706f5e4d3c2b1, please pull",
    "the diff is at https://github.com/acme/app/commit/9fceb02d0ae598e95dc970b74767f19372d61af8",
    "image digest sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
    "order #1234567890123456 shipped",
    "order 4000123412341234 is delayed",
    "tracking number 1Z999AA10123456784",
    "meeting on 2024-03-15 at 14:30, room 4.12",
    "timestamp 1700000000000 in ms",
    "the build took 1234.56 seconds",
    "password reset link sent to the user",
    "I forgot my password again",
    "the password is required for the admin panel",
    "token expired, please log in again",
    "max_tokens: 512 and temperature=0.2",
    "token_limit=4096",
    "the secretary will book the room",
    "tokens are counted per request",
    "use the API key from the vault, not from chat",
    "set OPENAI_API_KEY in your environment",
    "the key is in 1Password under 'staging'",
    "UUID 123e4567-e89b-12d3-a456-426614174000 in the logs",
    "the ticket is JIRA-4821",
    "ping @alice and @bob in #general",
    "version 3.11.4 of python",
    "ports 8080 and 5432 are open",
    "IP 192.168.1.20 is the printer",
    "call the function with id=42",
    "invoice INV-2024-000123 paid",
    "score was 12-7 in the final",
    "the room code is B-204",
    "our office is at 1600 Amphitheatre Parkway",
    "see RFC 7519 for JWT details",
    "npm package left-pad@1.3.0",
    "the SKU is 0012345678905",
    "zip code 94103",
    "a base64 image header iVBORw0KGgo is normal",
    "the hash in the URL https://cdn.example.com/a/8f14e45fceea167a5a36dedd4bea2543/app.js",
    "the git tag is release-2024.03.15",
    "a short secret: it's a surprise party!",
    "auth flow uses PKCE",
    "git@github.com:acme/app.git is the remote",
    "The password policy says 12 characters minimum",
    "a token of appreciation for the team",
    "key points: ship it, test it, document it",
    "ISBN 978-3-16-148410-0",
    "the flight is LH 454 on 12/03",
    "call extension 4321",
    "Temperature 21.5°C humidity 40%",
    "account number ends in 0042",
]
