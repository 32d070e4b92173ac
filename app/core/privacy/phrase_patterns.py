"""Secrets said in words: "my pin for the door is 4821", "das Passwort ist …", "X is the root password".

People rarely paste a credential as `KEY=value`; they write it into a sentence, in their own
language. Each pattern here is a label (a password word in one of the languages our users write,
a login, a Wi-Fi network), an optional short phrase
("for the company VPN", "de la tarjeta"), a connector (`:`, "is", "ist", "c'est", "é", "は"…) and
the value, which must pass a check for its kind (values.py). PINs and codes: `code_patterns.py`.
"""

from __future__ import annotations

import re

from app.core.privacy.pattern import SecretPattern, with_hints
from app.core.privacy.typed_secrets import shape
from app.core.privacy.values import (
    credential_like,
    direct_value,
    last_word_value,
    plausible_value,
    quoted_or_credential,
)
from app.core.privacy.words import PASSWORD_WORDS, SECURITY_ANSWER


def typed_value(value: str) -> bool:
    """The value looks typed as a secret (typed_secrets.shape): not a name, a word or an id."""
    return shape(value.rstrip(".,;:?)]}>\"'`")) is not None


# "postgres:16-alpine", "ubuntu:22.04-minimal": an image tag (a version and a variant).
_IMAGE_TAG = re.compile(
    r"(?i)^v?\d+(?:\.\d+)*(?:-[a-z][a-z0-9.]*)*$|^(?:latest|stable|slim|alpine)(?:-[\w.]+)*$"
)


def not_image_tag(value: str) -> bool:
    """`admin:Adm1n#24` is a password; `postgres:16-alpine` is a container image and its tag."""
    return credential_like(value) and not _IMAGE_TAG.match(value.rstrip(".,;:!?)]}>"))


def wifi_key_value(value: str) -> bool:
    """A Wi-Fi key: made-up (digit and letter or symbol), or words joined by underscores
    ("bearclaw_campfire"), which prose does not write."""
    v = value.rstrip(".,;:?)]}>\"'`")
    return direct_value(v) or (
        plausible_value(v) and re.fullmatch(r"[^\W\d_]{3,}(?:_[^\W\d_]{3,})+", v) is not None
    )


# Password words in the languages our users write; `pass` and `pw` only as whole words.
_PASSWORD = (
    rf"(?:{PASSWORD_WORDS}|{SECURITY_ANSWER}"
    r"|pre-?shared\s+key|psk|secret(?:\s+key)?|master\s+key"
    r"|(?:2fa|totp|otp|mfa|authenticator)\s+(?:seed|secret|key)|clé\s+(?:wi-?fi|wpa\d?)"
    r"|(?:wi-?fi|wlan|wpa\d?|network|wireless|router)[\s\-]+(?:key|code|schlüssel|passwort|password))"
    # "a senha nova é …", "el password nuevo: …": the adjective follows the noun.
    r"(?:\s+(?:new|nova|novo|nuevo|nueva|nouveau|nouvelle|neue|neues|nuovo|nuova|nieuwe|nowe|nowy"
    r"|temporal|provisoire|actual|atual|actuel|aktuelle))?"
)
# Latin and Cyrillic letters may not touch the label ("bypass"); CJK particles may ("パスワードは").
_LETTER = r"A-Za-z0-9_\-\u00c0-\u024f\u0400-\u04ff"
_LABEL = rf"(?i)(?<![{_LETTER}]){_PASSWORD}(?!(?!->)[{_LETTER}])"  # "pass->" is a label
# English password words: the one-plain-word rule below relies on an English stop list.
_EN_LABEL = r"(?i)(?<![\w\-])(?:password|passcode|passphrase|pwd|pw|pass)(?![\w\-])"
# "for the company VPN", "de la tarjeta", "(don't share)", "für das WLAN", "от вайфая".
_PHRASE = (
    # "mot de passe wifi:", "contraseña wifi =", "Passwort Server:": a bare context noun.
    r"(?:\s+(?:wi-?fi|wlan|router|vpn|e-?mail|mail|admin|root|server|serveur|servidor|bank|banco|banque"
    r"|laptop|pc|computer|ordinateur|hotspot|guest|gast|invités?|invitados?|du\s+wifi|del\s+wifi))?"
    r"(?:\s*\([^)\n]{1,30}\))?"
    r"(?:\s+(?:for|of|to|on|at|from|in|del|de|de\s+la|du|des|do|da|dos|das|für|fürs|zum|zur|vom|von"
    r"|от|для|di|della|dello|van|voor|na|per|al|pour|para|do)\s+(?:[\w'’.\-]+\s+){0,3}?[\w'’.\-]+)?"
    r"(?:\s*\([^)\n]{1,30}\))?"
)
_COLON = r"\s*(?:[:=：→]|->|=>|\s-\s|\s–\s|\s—\s)\s*"
_COPULA = (
    # The longer "was changed to" comes first, or "changed" would be taken for the value.
    r"\s*(?:\s(?:(?:was\s+|has\s+been\s+|is\s+)?(?:changed|set|updated|reset)\s+to|is|was|are|will\s+be"
    r"|is\s+now|es|est|c'est|ist|lautet|é|è|era|to|je|er|är|on|jest|это|है|este|adalah)\s*:?"
    r"|['’]s|\?\s*(?:it['’]s|it\s+is|its)|は|是|为|為|는|은)"
    r"\s+(?:now\s+|still\s+|literally\s+|just\s+|actually\s+|simply\s+|basically\s+"
    r"|(?:your|my|the)\s+\w+\s*:\s*)?"
)
# Articles and pronouns never start a value; excluding them lets the regex try the next parse.
_NOT_ARTICLE = r"(?!(?:the|a|an|my|your|our|this|that|it|is|in|on|for|to)\b)"
# Four or more groups of four digits first: a router's Wi-Fi key as printed ("4471 2209 8836 …").
_VALUE = r"(\d{4}(?: \d{4}){3,7}(?![\d\-])|\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s,;]{1,200})"
_WORD_VALUE = r"([^\W\d_]{4,40})(?=\s*(?:[.!?,;)]|$|\n))"


_PATTERNS: tuple[SecretPattern, ...] = (
    # `password: hunter2`, "Passwort für das WLAN: …", "pw - Tiramisu88", "password → …".
    SecretPattern(
        "password", re.compile(rf"{_LABEL}{_PHRASE}{_COLON}{_NOT_ARTICLE}{_VALUE}"), 1, plausible_value
    ),
    # "the password for the VPN is …", "das Passwort ist …", "c'est …", "密码是 …", "changed to …".
    SecretPattern(
        "password", re.compile(rf"{_LABEL}{_PHRASE}{_COPULA}{_NOT_ARTICLE}{_VALUE}"), 1, quoted_or_credential
    ),
    # "Tom's laptop password is bananas." — one plain word that closes the clause.
    # English only: the stop list that tells "is wrong" from "is bananas" is English.
    SecretPattern(
        "password",
        re.compile(
            rf"{_EN_LABEL}{_PHRASE}\s+(?:is|was)\s+(?:now\s+|still\s+|simply\s+|just\s+)?{_WORD_VALUE}"
        ),
        1,
        last_word_value,
    ),
    # "temp password Xk92!pqL", "Kennwort Hund!Katze3", "senha do banco 748291": no connector.
    SecretPattern("password", re.compile(rf"{_LABEL}{_PHRASE}\s+{_NOT_ARTICLE}{_VALUE}"), 1, direct_value),
    # `with password 'N0t$oS3cure'`: a quoted value right after the label.
    SecretPattern(
        "password",
        re.compile(rf"{_LABEL}\s+(\"[^\"\n]{{4,200}}\"|'[^'\n]{{4,200}}'|`[^`\n]{{4,200}}`)"),
        1,
        plausible_value,
    ),
    # "P@ssw0rd! is the root password", "hf_… is my huggingface token", "G-734821 is your code".
    SecretPattern(
        "password",
        re.compile(
            r"(?i)(?<![\w\-@.])([^\s:]{4,200})\s+(?:is|was|=|as)\s+(?:the|my|your|our|his|her|their)\s+"
            r"(?:[\w\-]+\s+){0,3}?(?:password|passwort|passcode|pin|code|token|key|secret|pw|pwd)"
            r"(?=\s*(?:[.,;:!?)]|$|\n|\s+(?:for|to|of|on|in|at|now|today)\b))"
        ),
        1,
        credential_like,
    ),
    # "it's Raspberry_Pi_4 (the password)".
    SecretPattern(
        "password",
        re.compile(
            r"(?i)(?<![\w\-@.])([^\s:(]{4,200})\s+\((?:the|my|that's\s+the)?\s*(?:password|pw|pwd|pin|passcode)\)"
        ),
        1,
        credential_like,
    ),
    # "I'm using MyDogMax2019 as the password".
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:using|use|used|chose|picked|set)\s+(\d{3}\s\d{3}|[^\s:]{4,200})\s+as\s+(?:the|my|our|your|a)\s+"
            r"(?:[\w\-]+\s+){0,2}?(?:password|passcode|pin|passphrase"
            r"|(?:login|log-in|sign-in|verification|security|one-time|access)\s+code)\b"
        ),
        1,
        credential_like,
    ),
    # "login: root / P@ssw0rd", "creds for netflix: me@x.com / popcorn5", "u: deploy p: 9xT!".
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:login|log-in|user(?:name)?|creds?|credentials|account|zugangsdaten|identifiants?|acceso|use"
            r"|(?:basic[\s\-])?auth)"
            r"(?:\s+(?:for|to|de|für|del|pour)\s+[\w.\-]+)?(?:\s*(?:[:=→]|->)\s*|\s+(?:are|is|sind|sont|son)\s+)"
            r"[^\s/]{1,64}\s*/\s*([^\s,;]{4,200})"
        ),
        1,
        credential_like,
    ),
    # "for the portal use jane / Jan3Doe!"; "admin:Adm1n#2024 for the staging box".
    SecretPattern(
        "password", re.compile(r"(?i)\buse\s+[^\s/]{1,64}\s*/\s*([^\s,;]{4,200})"), 1, credential_like
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)(?<![\w/:@.\-])(?:admin|root|administrator|user|guest|sa|postgres|ubuntu|pi|test|demo)"
            r"[:/]([^\s@/:]{4,200})(?=\s|$|[,;])"
        ),
        1,
        not_image_tag,
    ),
    SecretPattern(
        "password",
        re.compile(r"(?i)\bu(?:ser)?\s*[:=]\s*\S{1,64}\s+p\s*[:=]\s*(\S{3,200})"),
        1,
        credential_like,
    ),
    # "Basic auth for staging is staging:letmein2024", "creds: admin:hunter22".
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:basic\s+auth|http\s+auth|auth|creds?|credentials|login)\b[^\n:]{0,30}?"
            r"(?:\s(?:is|are)|:)\s+[^\s:/@]{1,64}:([^\s@/][^\s@]{3,200})"
        ),
        1,
        credential_like,
    ),
    # Wi-Fi: "Wi-Fi: network CafeGuest, key 88776655aa", "guest wifi key → Lemonade4All".
    SecretPattern(
        "wifi-password",
        re.compile(
            r"(?i)\b(?:wi-?fi|wlan|wpa\d?|ssid|network|router|modem)\b[^\n]{0,40}?\b(?:key|pass(?:word)?|pw|psk"
            r"|schlüssel|clé|cle|sandi|şifresi|passphrase)\b"
            r"\s*(?:[:=→]|->|is)?\s*([^\s,;]{6,63})"
        ),
        1,
        wifi_key_value,
    ),
    # "wi-fi: 'Casa Rossi' / 'pizzaMargherita1'": network name, a slash, the password.
    SecretPattern(
        "wifi-password",
        re.compile(
            r"(?i)\b(?:wi-?fi|wlan|ssid|network)\b(?:\s+is)?\s*[:=]?\s*(?:\"[^\"\n]{1,40}\"|'[^'\n]{1,40}'|[^\s/]{1,40})"
            r"\s*/\s*(\d{4}(?: \d{4}){3,4}|\"[^\"\n]{4,63}\"|'[^'\n]{4,63}'|[^\s,;]{4,63})"
        ),
        1,
        quoted_or_credential,
    ),
    # "the wifi at grandma's is Knitting4Ever", "wifi della casa al mare: Spiaggia_Sole23": what a
    # Wi-Fi "is" is its password when the value is typed-looking (a network name is followed by
    # "/" and its password, or named by "network"/"SSID", and those are left to the rules above).
    SecretPattern(
        "wifi-password",
        re.compile(
            r"(?i)(?<![\w\-])(?:wi-?fi|wlan|wifi-?netz|hotspot)(?![\w\-])(?!\s+(?:name|network|ssid|netz))"
            r"[^\n.:=/]{0,30}?(?:\s(?:is|es|est|ist|é|è|c'est)|\s*[:=])\s+([^\s,;/]{6,63})(?!\s*/)"
        ),
        1,
        typed_value,
    ),
    # "Hulu: h.nguyen@outlook.com / SoupDumpling88": a service, a login, a slash, a typed value.
    SecretPattern(
        "password",
        re.compile(
            r"(?i)(?<![\w\-])[A-Za-z][\w.\-+ ]{1,30}:\s*"
            r"(?:[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+|[a-z][\w.\-]{2,40})\s*/\s*([^\s,;]{6,200})"
        ),
        1,
        typed_value,
    ),
    # "Security Q: first pet = Marzipan", "the security question (maiden name) is Abernathy": the
    # answer is one word closing the clause; the stop list keeps "is required" and "is stupid".
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\bsecurity\s+(?:q|question|questions)\b[^\n=]{0,50}?(?:=|->|\s(?:is|was))\s*"
            r"([^\W\d_][\w'’\-]{2,40})(?=\s*(?:[.!?,;)]|$|\n))"
        ),
        1,
        last_word_value,
    ),
    # "服务器admin密码：Baozi#88", "管理员パスワード: …": CJK password words glue to the word before.
    # The value is typed in ASCII ("パスワードは8文字以上" says "8 characters or more").
    SecretPattern(
        "password",
        re.compile(
            r"(?:密码|密碼|口令|パスワード|비밀번호|암호)\s*(?:[:：=]|是|为|為|は|는|은)\s*"
            r"([!-+\--:<-~]{4,200})(?![!-~])"
        ),
        1,
        plausible_value,
    ),
    # `CORP\svc-backup and Tape-Rotation-#9`, `ACME\jdoe / Winter#24`: a Windows domain account,
    # then its password.
    SecretPattern(
        "password",
        re.compile(
            r"(?<![\w\\])[A-Z][A-Z0-9\-]{1,15}\\[\w.\-]{2,40}\s*(?:/|,|:|\s+(?:and|with|pw|pass|password))\s+"
            r"([^\s,;]{4,200})"
        ),
        1,
        credential_like,
    ),
    # The Wi-Fi QR payload: WIFI:S:<ssid>;T:WPA;P:<password>;;
    SecretPattern("wifi-password", re.compile(r"WIFI:[^\n]*?\bP:((?:[^;\\\n]|\\.)+);"), 1, plausible_value),
)

# Lower-case words one of which must be in the text for each pattern above, in order.
_PASSWORD_HINTS = (
    "pass", "pw", "psw", "mdp", "kennwort", "contrase", "clave", "senha", "wachtwoord", "hasł", "hasl",
    "парол", "parola", "salasana", "lösenord", "losenord", "adgangskode", "şifre", "sifre", "heslo",
    "jelsz", "κωδικ", "비밀번호", "パスワード", "暗証番号", "密码", "密碼", "口令", "shared key", "psk",
    "secret", "master key", "mật khẩu", "पासवर्ड", "sandi", "seed", "key", "code", "schlüssel", "clé",
    "parool", "kodeord", "lozink", "лозинк", "gesl", "slaptaž", "lykilor", "pasahitza", "cyfrinair",
    "nenosiri", "fjalëkalim", "סיסמ", "كلمة", "رمز", "รหัสผ่าน", "পাসওয়ার্ড", "contrase", "contrasinal",
    "wagwoord", "암호", "answer", "memorable", "schlüssel", "schluessel", "clé", "clave", "chave",
)  # fmt: skip
_REVERSE_HINTS = ("pass", "pin", "code", "token", "key", "secret", "pw")
PHRASE_PATTERNS = with_hints(
    _PATTERNS,
    (
        _PASSWORD_HINTS,
        _PASSWORD_HINTS,
        _PASSWORD_HINTS,
        _PASSWORD_HINTS,
        _PASSWORD_HINTS,
        _REVERSE_HINTS,
        ("password)", "pw)", "pwd)", "pin)", "passcode)"),
        ("pass", "pin", "code"),
        (
            "login",
            "log-in",
            "user",
            "cred",
            "account",
            "zugangsdaten",
            "identifiant",
            "acceso",
            "use",
            "auth",
        ),
        ("use",),
        ("admin", "root", "user", "guest", "sa", "postgres", "ubuntu", "pi", "test", "demo"),
        ("u",),
        ("auth", "cred", "login"),
        ("wi", "wlan", "wpa", "ssid", "network", "router", "modem"),
        ("wi", "wlan", "ssid", "network"),
        ("wi", "wlan", "hotspot"),
        ("/",),
        ("security q",),
        ("密码", "密碼", "口令", "パスワード", "비밀번호", "암호"),
        ("\\",),
        ("wifi:",),
    ),
)
