"""A labelled corpus for the redactor: chat lines with secrets (and what must vanish), and look-alikes.

Every value here is fake: AWS's documented example keys, made-up tokens of the right shape, test
card numbers and IBANs from the issuers' documentation. The benchmark (tests/benchmarks/
bench_redaction.py) prints precision and recall on it; the tests hold the goals.
"""

# ruff: noqa: E501  (labelled data: one example per line reads better than split strings)

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

# Round 2, written after tuning on the lists above. Measured blind first: secrets recall 13/15
# (missed "login: root / P@ss…" and "password was changed to …"), look-alikes 0/20; both gaps
# were then fixed, so this round is now development data too.
ROUND2_SECRETS: list[tuple[str, tuple[str, ...], str]] = [
    ("new laptop, the disk passphrase is Gr33n-Apple-Tr33!", ("Gr33n-Apple-Tr33!",), "password"),
    ("pls rotate AKIAJ7Q2ZXK4LMNOP3QR asap, it leaked in the logs", ("AKIAJ7Q2ZXK4LMNOP3QR",), "aws-key"),
    (
        "gho_Zq9Lm2Xw8Rt5Yu1Io4Pa7Sd3Fg6Hj0Kl2Zx9C is the oauth token for the bot",
        ("gho_Zq9Lm2Xw8Rt5Yu1Io4Pa7Sd3Fg6Hj0Kl2Zx9C",),
        "github-token",
    ),
    (
        "SLACK_BOT_TOKEN=xoxb-9876543210-1234567890123-ZyXwVuTsRqPoNmLkJiHgFeDc",
        ("xoxb-9876543210",),
        "slack-token",
    ),
    (
        "export STRIPE_SECRET=sk_live_51NzQpLKj8Hh2GgFfEeDdCcBbAa",
        ("sk_live_51NzQpLKj8Hh2GgFfEeDdCcBbAa",),
        "stripe-key",
    ),
    ("admin login: root / P@ssw0rd2024", ("P@ssw0rd2024",), "password"),
    ("the redis password was changed to 8xK2mQ9vL4pR", ("8xK2mQ9vL4pR",), "password"),
    (
        "here's my anthropic key sk-ant-api03-Xk9Lm2Qw8Er5Ty1Ui4Op7As3Df6Gh0Jk",
        ("sk-ant-api03-Xk9Lm2Qw8Er5Ty1Ui4Op7As3Df6Gh0Jk",),
        "openai-key",
    ),
    ("mongodb+srv://appuser:Hx7pQ2wLz9@cluster0.mongodb.net/app", ("Hx7pQ2wLz9",), "url-password"),
    (
        "firebase apiKey: AIzaSyDx7Lq2Wm9Zt4Rv8Kp1Ns6Jh3Gf0Bc5Xy2",
        ("AIzaSyDx7Lq2Wm9Zt4Rv8Kp1Ns6Jh3Gf0Bc5Xy2",),
        "google-key",
    ),
    (
        "SSH key below\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5ovtJNBhEJS9SoAoGCCqGSM49\n-----END EC PRIVATE KEY-----",
        ("MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5",),
        "private-key",
    ),
    ("X-API-Key: 4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", ("4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",), "password"),
    ("wire it to FR14 2004 1010 0505 0001 3M02 606", ("FR14 2004 1010 0505 0001 3M02 606",), "iban"),
    ("my visa is 4012888888881881", ("4012888888881881",), "card"),
    ("you can text 415.555.0188 anytime", ("415.555.0188",), "phone"),
    ("office line +33 1 42 68 53 00", ("42 68 53 00",), "phone"),
    ("contact: m.rossi@azienda.it", ("m.rossi@azienda.it",), "email"),
    (
        "token for the staging API: eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJzdGFnaW5nIiwiZXhwIjoxNzAwMDAwMDAwfQ.c2lnbmF0dXJlLXBsYWNlaG9sZGVyLXZhbHVl",
        ("c2lnbmF0dXJlLXBsYWNlaG9sZGVyLXZhbHVl",),
        "jwt",
    ),
    ("the vpn shared secret = 'kT7#vQ2!mZ9x'", ("kT7#vQ2!mZ9x",), "password"),
    (
        "heroku api key is 3e5a7c9b-1d2f-4a6b-8c0d-2e4f6a8b0c1d",
        ("3e5a7c9b-1d2f-4a6b-8c0d-2e4f6a8b0c1d",),
        "password",
    ),
]

ROUND2_LOOK_ALIKES: list[str] = [
    "the password manager migration is done",
    "can someone reset my token? it stopped working",
    "upgrade to node 20.11.1 before Friday",
    "PR #4821 fixes the login bug",
    "see https://example.com/docs/v3/api-keys for how keys work",
    "build 20240315.7 is green",
    "the order id is ORD-2024-88341",
    "commit a1b2c3d fixed it",
    "run `git checkout 4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f`",
    "the meeting id is 845 2231 9987",
    "shipment weight 12.5 kg, dims 40x30x20",
    "our api key rotation policy is 90 days",
    "password: see the vault entry 'prod-db'",
    "the secret sauce is more testing",
    "I'll send the token of thanks tomorrow",
    "Room 3.14 at 10:30, bring the slides",
    "the CVE is CVE-2024-3094",
    "docker image acme/api:1.4.2-alpine",
    "invoice total 1,234.56 EUR due 2024-04-30",
    "the key takeaway: ship smaller PRs",
]

# Round 3, written after the round-2 fixes. Measured blind first: secrets recall 11/14, PII 5/6
# (missed Slack `xapp-` tokens, "pw is …", "password '…'" without a colon, and a card after the
# word "number"), look-alikes 0/20; fixed since, so this round is development data too.
ROUND3_SECRETS: list[tuple[str, tuple[str, ...], str]] = [
    ("staging db: user=app password=Winter2025!x", ("Winter2025!x",), "password"),
    (
        "new AWS creds AKIAZ3MQ7RTX2WLPK9VN / secret 9vQz+Lm3Xr7Tw2Kp5Nb8Yc1Hd4Gf6Js0Ae2Ui5Ow",
        ("AKIAZ3MQ7RTX2WLPK9VN", "9vQz+Lm3Xr7Tw2Kp5Nb8Yc1Hd4Gf6Js0Ae2Ui5Ow"),
        "aws-key",
    ),
    (
        "ghs_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78 is the app installation token",
        ("ghs_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78",),
        "github-token",
    ),
    (
        "xapp-1-A0123BCDEF-1234567890123-abcdef0123456789abcdef0123456789abcdef0123456789 for socket mode",
        ("xapp-1-A0123BCDEF",),
        "slack-token",
    ),
    (
        "pk_live_51Hq3RkLmNoPqRsTuVwXyZ0123 publishable, sk_live_51Hq3RkAbCdEfGhIjKlMnOp4567 secret",
        ("sk_live_51Hq3RkAbCdEfGhIjKlMnOp4567", "pk_live_51Hq3RkLmNoPqRsTuVwXyZ0123"),
        "stripe-key",
    ),
    ("the wifi pw is Blue-Whale-42", ("Blue-Whale-42",), "password"),
    ("passcode: 739201", ("739201",), "password"),
    ("ssh root@10.0.0.5 with password 'N0t$oS3cure'", ("N0t$oS3cure",), "password"),
    (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0a1b2c3d4e5f6g7h8i9j0k\n-----END PGP PRIVATE KEY BLOCK-----",
        ("lQOYBF0a1b2c3d4e5f6g7h8i9j0k",),
        "private-key",
    ),
    ("amqp://guest:Rabb1tPa55@mq.internal:5672/", ("Rabb1tPa55",), "url-password"),
    (
        "OPENAI key: sk-svcacct-Qw8Er5Ty1Ui4Op7As3Df6Gh0Jk2Lz9Xc",
        ("sk-svcacct-Qw8Er5Ty1Ui4Op7As3Df6Gh0Jk2Lz9Xc",),
        "openai-key",
    ),
    (
        "Authorization: Bearer ya29.a0AfH6SMBx7Lq2Wm9Zt4Rv8Kp1Ns6Jh3Gf0Bc5",
        ("ya29.a0AfH6SMBx7Lq2Wm9Zt4Rv8Kp1Ns6Jh3Gf0Bc5",),
        "bearer-token",
    ),
    (
        "the api_secret for the webhook: 7d1f9e3a5c7b9d1f3e5a7c9b1d3f5e7a",
        ("7d1f9e3a5c7b9d1f3e5a7c9b1d3f5e7a",),
        "password",
    ),
    ("card ending... actually full number 5105 1051 0510 5100, cvv 123", ("5105 1051 0510 5100",), "card"),
    ("pay NL91 ABNA 0417 1643 00 before the 5th", ("NL91 ABNA 0417 1643 00",), "iban"),
    ("ES91 2100 0418 4502 0005 1332 is the landlord's account", ("ES91 2100 0418 4502 0005 1332",), "iban"),
    ("my number changed: (212) 555-0147", ("555-0147",), "phone"),
    ("write to support@helpdesk.example.org", ("support@helpdesk.example.org",), "email"),
    ("dial +61 2 9374 4000 for Sydney", ("9374 4000",), "phone"),
    (
        "the bot token is 987654321:AAE_x9Lm2Qw8Er5Ty1Ui4Op7As3Df6Gh0Jk",
        ("AAE_x9Lm2Qw8Er5Ty1Ui4Op7As3Df6Gh0Jk",),
        "telegram-bot-token",
    ),
]

ROUND3_LOOK_ALIKES: list[str] = [
    "the password field should accept unicode",
    "token refresh happens every 15 minutes",
    "we shipped 1.0.0-rc.3 to staging",
    "blob sha 5d41402abc4b2a76b9719d911017c592 matches",
    "the meetup is at 18:30 on 03/14/2025",
    "ticket #99823 is assigned to Omar",
    "mix 250 g flour with 2 eggs",
    "the API key header is called X-API-Key",
    "call me when you land",
    "I'll email you the slides",
    "our phone system is down, use Slack",
    "the postcode is SW1A 1AA",
    "batch 2024-11-07-003 failed QA",
    "secret santa draw is on Friday",
    "grant_type=client_credentials is what we use",
    "the credit card form validates with Luhn",
    "temperature went from 18 to 24 degrees",
    "version string: build-7f3a2c1 (dirty)",
    "the IBAN field needs a checksum check",
    "aws region eu-west-1 and az eu-west-1b",
]

# Round 4, written after the round-3 fixes. Measured blind: secrets recall 11/14, PII 6/6,
# look-alikes 0/25 (docs/benchmarks.md). Two gaps were fixed after (an empty URL user name
# "redis://:pw@", "creds are admin/pw"); "my pin for the door is 482913" is still missed.
HELDOUT_SECRETS: list[tuple[str, tuple[str, ...], str]] = [
    ("guest network password: sunflower-Cafe-88", ("sunflower-Cafe-88",), "password"),
    ("db creds are admin/Zq8#Lm2!Wx", ("Zq8#Lm2!Wx",), "password"),
    ("AKIA4N7TQ2XW9ZLMB6RP is the deploy user's access key", ("AKIA4N7TQ2XW9ZLMB6RP",), "aws-key"),
    (
        "github_pat_11AZX7QYA0kLm2Nn3Oo4Pp_5Qq6Rr7Ss8Tt9Uu0Vv1Ww2Xx3Yy4Zz5Aa6Bb7Cc8Dd9 (fine-grained)",
        ("github_pat_11AZX7QYA0kLm2Nn3Oo4Pp",),
        "github-token",
    ),
    (
        "ghr_8Hn2Jk4Lm6Np8Qr0St2Uv4Wx6Yz8Ab0Cd2Ef4G refresh token",
        ("ghr_8Hn2Jk4Lm6Np8Qr0St2Uv4Wx6Yz8Ab0Cd2Ef4G",),
        "github-token",
    ),
    (
        "set SENDGRID_API_KEY to SG.x9Lm2Qw8Er5Ty1Ui4Op7A.s3Df6Gh0Jk2Lz9Xc5Vb8Nm1Qw4Er7Ty0Ui3Op6As",
        ("SG.x9Lm2Qw8Er5Ty1Ui4Op7A",),
        "password",
    ),
    (
        "the JWT: eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJ1aWQiOjQyLCJyb2xlIjoiYWRtaW4ifQ.MEUCIQDx7Lq2Wm9Zt4Rv8Kp1Ns6Jh3Gf",
        ("MEUCIQDx7Lq2Wm9Zt4Rv8Kp1Ns6Jh3Gf",),
        "jwt",
    ),
    ("redis://:R3d1sS3cr3t@cache.internal:6379/0", ("R3d1sS3cr3t",), "url-password"),
    ("'token': 'a8f5f167f44f4964e6c998dee827110c'", ("a8f5f167f44f4964e6c998dee827110c",), "password"),
    (
        "AZURE_CLIENT_SECRET=Qx8~Lm2.Wn9_Zt4-Rv8Kp1Ns6Jh3Gf0Bc5Xy",
        ("Qx8~Lm2.Wn9_Zt4-Rv8Kp1Ns6Jh3Gf0Bc5Xy",),
        "password",
    ),
    (
        "sk-9Xq2Lm8Wn4Zt7Rv1Kp5Ns3Jh6Gf0Bc2Xy9Vb4Nm8 is the old openai key",
        ("sk-9Xq2Lm8Wn4Zt7Rv1Kp5Ns3Jh6Gf0Bc2Xy9Vb4Nm8",),
        "openai-key",
    ),
    ("my pin for the door is 482913", ("482913",), "password"),
    (
        "xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAtMTIzNDU2Nzg5MDEyMy1hYmNkZWY rotating token",
        ("Mi0yLTEyMzQ1Njc4OTAtMTIzNDU2Nzg5MDEyMy1hYmNkZWY",),
        "slack-token",
    ),
    (
        "-----BEGIN DSA PRIVATE KEY-----\nMIIBuwIBAAKBgQD1x7Lq2Wm9Zt4Rv8Kp1Ns6\n-----END DSA PRIVATE KEY-----",
        ("MIIBuwIBAAKBgQD1x7Lq2Wm9Zt4Rv8Kp1Ns6",),
        "private-key",
    ),
    ("send the refund to 6011 1111 1111 1117", ("6011 1111 1111 1117",), "card"),
    ("IBAN: CH93 0076 2011 6238 5295 7", ("CH93 0076 2011 6238 5295 7",), "iban"),
    ("ping me at alex_99@mail.example.net", ("alex_99@mail.example.net",), "email"),
    ("landline 030 12345678, mobile +49 170 1234567", ("170 1234567",), "phone"),
    ("call +1-202-555-0173 for the venue", ("202-555-0173",), "phone"),
    ("Amex 3714 496353 98431 is the company card", ("3714 496353 98431",), "card"),
]

HELDOUT_LOOK_ALIKES: list[str] = [
    "the password must be rotated every quarter",
    "I lost my badge, need a new one",
    "token bucket rate limiting at 100 rps",
    "we use bcrypt for password hashing",
    "the secret is good documentation",
    "deploy 2.3.1 to prod after lunch",
    "merge 7c2f9e1 into main",
    "sha1 of the file is da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "see issue https://github.com/acme/api/issues/1234",
    "order ref 5105105105105100 was refunded",
    "the zoom id is 912 3456 7890",
    "at 09:45 we have standup",
    "budget is 12,500 USD for Q3",
    "keyboard shortcut is Ctrl+Shift+K",
    "use the staging key from 1Password, not this chat",
    "api_key: <your key here>",
    "password: ${DB_PASSWORD}",
    "token={{ secrets.GITHUB_TOKEN }}",
    "the access key id starts with AKIA usually",
    "we got 4,012 signups yesterday",
    "phones ring at 10 in the morning",
    "her email is on the website",
    "the coordinates are 52.5200, 13.4050",
    "lot number 20241107 expires 2026",
    "UUIDs like 550e8400-e29b-41d4-a716-446655440000 are fine",
]
