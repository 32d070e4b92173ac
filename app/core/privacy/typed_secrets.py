"""Passwords with no fixed phrasing, scored from two features: the token's shape and the words near it.

The phrase patterns need a label and a connector they know ("password: …", "das Passwort ist …").
People also write "I use Pa$$w0rd for the test accounts", "psql -U admin -W then type Adm!nPg",
"password hint: it's Rover2019". What these share is not a phrasing but two features:
- **shape**: the token looks typed as a secret. `strong` mixes lower-case letters with digits and
  a symbol or an inner capital (`Pa$$w0rd`, `Adm!nPg`, `Shells&Sand22`); `medium` is a word with
  digits glued on (`Rover2019`, `tortilla2023`). Ids, versions, hashes, codes in capitals, URLs,
  e-mail addresses, paths and file names are never candidates.
- **context**: a credential word in the same clause. Password words in ~40 languages weigh 2;
  login words (login, account, sudo, ssh, Wi-Fi, VPN, "type", "enter", in many languages) weigh 1.

A token is masked when shape + context >= 3, where a medium token also needs a connector between
a password word before it and itself (`:`, "is", "it's", "set to", "type"…), so "my password
manager on Windows11" stays prose. A product name right before the password word ("Outlook365
password") is a modifier, not a value. Each finding keeps its features (`explain`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from app.core.privacy.values import plausible_value
from app.core.privacy.words import PASSWORD_WORDS, SECURITY_ANSWER

_PASSWORD_WORDS = rf"{PASSWORD_WORDS}|{SECURITY_ANSWER}|pre-?shared\s+key|psk"
# Words that put a typed value in a login situation.
_LOGIN_WORDS = (
    r"log-?in|logins|log\s+in|sign\s+in|sign-?in|signin|accounts?|creds?|credentials|sudo|ssh|su|prompt"
    r"|unlock|wi-?fi|wlan|vpn|router|hotspot|type|enter|paste|anmelden|anmeldung|einloggen|konto|zugang"
    r"|compte|connexion|identifiant|cuenta|iniciar\s+sesión|acceso|conta|entrar|accesso|inloggen"
    r"|logowanie|zaloguj|вход|логин|аккаунт|войти|giriş|hesap|-W|keychain|users?|username|keys?"
    r"|add_user|adduser|useradd|change_password|htpasswd|identified\s+by|encrypted|encryption|decrypt|vault"
)
# Typing verbs count only right before the value ("then type Adm!nPg"): "type" and "enter" are
# everyday nouns and verbs elsewhere.
_VERBS = (
    r"type|enter|paste|key\s+in|put\s+in|tippe|tape|escribe|digita|введи|入力|use|uses|using|try"
    r"|(?:opens?|unlocks?|decrypts?|protected|encrypted|locked)\s+with|changed\s+(?:it|mine|ours)\s+to"
)
_UNLOCK_VERB = re.compile(r"(?i)(?:opens?|unlocks?|decrypts?|protected|encrypted|locked)\s+with")
_ANCHOR = re.compile(
    rf"(?i)(?<!\w)(?:(?P<pw>{_PASSWORD_WORDS})|(?P<login>{_LOGIN_WORDS})|(?P<verb>{_VERBS}))(?![\w\-])"
    r"|(?P<cjk>パスワード|暗証番号|密码|密碼|口令|비밀번호|암호|รหัสผ่าน)"
)
# A connector between a password word and its value: "hint: it's", "is", "set to", "→", "type".
# It must close the gap, right before the value ("hint: it's Rover2019"), so a preposition after
# the password word ("password manager on Windows11") is not taken for one.
_CONNECTOR = re.compile(
    r"(?i)(?:[:=→]|->|(?<!\w)(?:is|was|are|it['’]s|its|es|est|c['’]est|ist|lautet|é|è|era|je|är|er|jest"
    r"|to|type|enter|use|try|now|just|simply|then)|['’]s|は|是|는|은)"
    r"(?:\s+(?:literally|actually|basically|just|simply|still|now|probably))?\s*$"
)
# "hint? no hint, it's …": a question mark often pivots inside one thought, so only a full stop,
# a semicolon or a new line ends the clause.
_CLAUSE_END = re.compile(r"[.;](?:\s|$)|\n")
# A token right after a username or network label is a name: "user: rob2019", "wifi: HomeNet5G".
_USER_LABEL = re.compile(
    r"(?i)(?<!\w)(?:user(?:name)?|login|account|konto|usuario|utilisateur|benutzer(?:name)?|e-?mail|id|u|as|for"
    r"|@|wi-?fi|wlan|ssid|network(?:\s+name)?|netzwerk|réseau|red|rede)\s*[:=]?\s*$"
)
# Only tokens holding a digit or a symbol can be candidates; most words are skipped by the regex.
# A symbol at a token's end ("really?", "wow!") does not make it one.
_TOKEN = re.compile(r"(?<!\S)\S*?(?:\d|_[A-Z]|[!@#$%^&*+=?~|€£§](?=\S))\S*")
_STRIP_LEAD = "\"'`([{<«“‘"
_STRIP_TRAIL = "\"'`)]}>»”’.,;:?"
# Never typed secrets: URLs, e-mails, paths, file names, versions, numbers, capitals-and-digits
# codes (bookings, SKUs, SHA256, ISO27001), hex strings (hashes), ids with a dash and digits.
_NOT_CANDIDATE = re.compile(
    r"(?i)^(?:.*://.*|www\..*|[^@\s]+@[^@\s]+\.\w+|.*/.*/.*|[#@]\w+|.*\.(?:pdf|png|jpe?g|gif|txt|zip|tgz|gz"
    r"|docx?|xlsx?|csv|json|ya?ml|py|js|ts|md|html?|exe|dmg|apk|iso|mp[34]|mov|log|sh|sql|conf|ini)"
    r"|v?\d+(?:[.\-_]\d+)+\w{0,3}|[\d.,:/\-]+\w{0,3}|[0-9a-f]{6,}|[a-z]{1,3}\d{1,2}[a-z]?|\w+\.\w+\.\S+"
    r"|(?-i:[a-z][A-Z]\w*))$"
)
_CAPS_CODE = re.compile(r"^[A-Z0-9][A-Z0-9_\-]*$")
# Flags, assignments, markup and lists are code or prose structure, never a typed value.
_STRUCTURE = re.compile(r"^-|[=\\|()<>{}\[\]\",;/:]")
# `*`, `+`, `^`, `|` and `=` glue code, globs and maths (XTerm*color1, C++11, a^2), not passwords.
_SYMBOLS = set("!@#$%&?~€£§")
# Typed with no context: letters, digits and a password symbol inside; no `*`, `+`, `_`, `.` or
# `-`, which glue code, globs and version names (XTerm*color1, C++11-specific, PKCS#12-formatted).
_TYPED = re.compile(r"[A-Za-z][A-Za-z0-9]*[a-z0-9][!@#$%&?~]+[A-Za-z0-9][A-Za-z0-9!@#$%&?~]{1,28}")
# Capitalised words joined by "_" or "-", one more part at least, a digit somewhere.
_JOINED = re.compile(
    r"[A-Z][a-zß-ÿ]+(?:[_\-](?=[A-Za-zß-ÿ0-9]*[A-Za-zß-ÿ])[A-Za-zÀ-ÿ0-9]+)+(?:[_\-]?\d{1,6})?[!#$?]?"
)
# Capitalised words joined by dots and a number: "Glacier.Mint.Ocelot.88" (not a domain or a
# module path, which are lower-case or end in a word).
_DOTTED = re.compile(r"[A-Z][a-z]+(?:\.[A-Z][a-z]+){2,}\.?\d{1,6}[!#$?]?")
_INNER_SYMBOL = re.compile(r"[^\W_][!@#$%&?~€£§]+[^\W_]")
# One digit standing for a letter inside a word (Sh1p, prom3theus); "mp3s", "h264", "i18n" and
# "k8s" hold no such run of letter, digit, letter with two letters on one side.
_LEET = re.compile(r"[a-z]\d[a-z]{2}|[a-z]{2}\d[a-z]")


@dataclass(frozen=True, slots=True)
class TypedSecret:
    start: int
    end: int
    shape: str  # "typed", "strong" or "medium"
    context: str  # the anchor word that counted
    score: int

    def explain(self) -> str:
        if not self.context:
            return f"{self.shape} shape alone (score {self.score})"
        return f"{self.shape} shape + '{self.context}' nearby (score {self.score})"


def shape(token: str) -> str | None:
    """`strong`, `medium` or None for a candidate value (already stripped of wrapping punctuation)."""
    if 6 <= len(token) <= 64 and _DOTTED.fullmatch(token):
        return "strong"
    if not 6 <= len(token) <= 64 or token.startswith("[SECRET:") or _NOT_CANDIDATE.match(token):
        return None
    if _CAPS_CODE.match(token) or _STRUCTURE.search(token) or not plausible_value(token):
        return None
    if not any(c.islower() for c in token):
        return None
    digit = any(c.isdigit() for c in token)
    upper = any(c.isupper() for c in token)
    inner = _INNER_SYMBOL.search(token)
    symbols = sum(c in _SYMBOLS for c in token)
    if digit and upper and _TYPED.fullmatch(token) and "++" not in token:
        return "typed"  # Hunter2!Hunter: all four kinds of character, as password rules ask
    if inner and (digit or upper or symbols >= 2):
        return "strong"  # Pa$$w0rd, Adm!nPg, Shells&Sand22, welcomeHome!7
    if _JOINED.fullmatch(token) and digit and not token[0].isdigit():
        return "strong"  # Trestle_Table88, Bookworm_Owl_3, Falafel_TLV9: a generated passphrase
    if _JOINED.fullmatch(token) and token.count("_") >= 2:
        return "medium"  # Ethernet_Is_Better: three capitalised words joined
    generated = len(token) >= 8 and _class_changes(token) >= 0.6 * len(token)
    if generated and sum(c.isupper() for c in token) >= 2 and sum(c.isdigit() for c in token) >= 2:
        return "strong"  # Pq4Tn8Vx2Lm6: small, capital and digit alternate as in a generated one
    ends = len(token) - len(token.rstrip("".join(_SYMBOLS)))
    if 0 < ends <= 3 and token[-ends - 1].isalnum() and digit and upper and not token[0].isdigit():
        return "strong"  # Playa2025!, pgPass2024!
    if not token[0].isdigit() and re.fullmatch(r"[A-Za-z]+(?:[_\-][A-Za-z]+)*[_\-]?\d{2,6}[!#$*]?", token):
        return "medium"  # Rover2019, Spiaggia_Sole23, PurpleRain84: words with digits glued on
    if upper and len(token) >= 8 and _LEET.search(token) and not token[0].isdigit():
        return "strong"  # Sh1pItFriday, prom3theus-Fire, Tr3ehouse_9: a digit for a letter in a word
    if upper and len(token) >= 8 and re.fullmatch(r"[A-Z][a-z]+\d{1,6}[A-Z][a-z]+\d*", token):
        return "medium"  # Stmt8841Acc, Knitting4Ever: capitalised words around digits
    if len(token) >= 8 and re.fullmatch(r"[a-z]{3,}\d{2,6}[a-z]{3,}", token):
        return "medium"  # panda88bamboo
    if (
        upper
        and len(token) >= 8
        and re.fullmatch(r"[a-z]{3,}(?:[_\-][A-Za-z][a-z]+)*[_\-][A-Z][a-z]{2,}", token)
    ):
        return "medium"  # blueheron_Pond: a plain word joined to a capitalised one
    if len(token) >= 7 and re.fullmatch(r"[a-z]{2,}\d[a-z]{3,}", token):
        return "medium"  # bak9ery: one digit for a letter, all lower-case
    return None


def _class_changes(token: str) -> int:
    kinds = ["l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "s" for c in token]
    return sum(a != b for a, b in itertools.pairwise(kinds))


def find_typed(text: str) -> list[TypedSecret]:
    """Tokens whose shape and nearby credential words together pass the threshold."""
    candidates = []
    for m in _TOKEN.finditer(text):
        raw = m.group()
        if len(raw) > 2 and raw[0] == raw[-1] and raw[0] in "*_~":
            continue  # *emphasis*, _italic_, ~strike~ and *help-tags*
        lead = len(raw) - len(raw.lstrip(_STRIP_LEAD))
        value = raw[lead:].rstrip(_STRIP_TRAIL)
        start = m.start() + lead
        kind = shape(value) if value else None
        if kind is not None and not _USER_LABEL.search(text[max(0, start - 24) : start]):
            candidates.append((start, start + len(value), kind))
    if not candidates:
        return []
    anchors = [
        (m.start(), m.end(), "pw" if (m.group("pw") or m.group("cjk")) else m.lastgroup or "login", m.group())
        for m in _ANCHOR.finditer(text)
    ]
    out: list[TypedSecret] = []
    for start, end, kind in candidates:
        best = _context(text, start, end, kind, anchors)
        if best is not None:
            out.append(TypedSecret(start, end, kind, best[1], best[0]))
    return out


def _context(
    text: str, start: int, end: int, kind: str, anchors: list[tuple[int, int, str, str]]
) -> tuple[int, str] | None:
    if kind == "typed":
        return (3, "")  # its shape alone is enough
    base = 2 if kind == "strong" else 1
    best: tuple[int, str] | None = None
    for a_start, a_end, group, word in anchors:
        if a_end <= start:
            between = text[a_end:start]
            if len(between) > 60 or _CLAUSE_END.search(between):
                continue
            # A medium value needs a password word before it, joined by a connector or nothing
            # at all ("pass Ethernet_Is_Better"); "password manager on Windows11" is prose.
            # "the laptop unlocks with mango_sunrise_07": what opens a device is its password.
            unlocks = group == "verb" and _UNLOCK_VERB.fullmatch(word) is not None and not between.strip()
            if (
                kind == "medium"
                and not unlocks
                and (group != "pw" or not (_CONNECTOR.search(between) or not between.strip()))
            ):
                continue
            if group == "verb" and between.strip() not in ("", "in", "the", "it", "in the"):
                continue
            weight = 2 if group == "pw" or unlocks else 1
        elif a_start >= end:
            between = text[end:a_start]
            # After the value only for strong shapes, and never as a modifier ("Outlook365 password").
            if kind != "strong" or len(between) > 40 or _CLAUSE_END.search(between) or not between.strip():
                continue
            weight = 1
        else:
            continue
        score = base + weight
        if score >= 3 and (best is None or score > best[0]):
            best = (score, word)
    return best
