"""Secrets said in words: "my pin for the door is 4821", "das Passwort ist …", "X is the root password".

People rarely paste a credential as `KEY=value`; they write it into a sentence, in their own
language. Each pattern here is a label (a password word in one of the languages our users write,
a PIN or a qualified code such as door, alarm or verification code), an optional short phrase
("for the company VPN", "de la tarjeta"), a connector (`:`, "is", "ist", "c'est", "é", "は"…) and
the value, which must pass a check for its kind (values.py). Bare "code" never counts: promo,
zip, error and meeting codes are shared openly.
"""

from __future__ import annotations

import re

from app.core.privacy.secret_patterns import SecretPattern, with_hints
from app.core.privacy.values import (
    code_value,
    credential_like,
    direct_value,
    last_word_value,
    plausible_value,
    quoted_or_credential,
)

# Password words in the languages our users write; `pass` and `pw` only as whole words.
_PASSWORD = (
    r"(?:passwords?|passwort|passwd|passcode|passphrase|pwd|psw|pw|pass|mdp|mot\s+de\s+passe|kennwort"
    r"|contraseña|contrasena|clave|senha|wachtwoord|hasło|haslo|пароль|пароля|parola|salasana"
    r"|lösenord|losenord|adgangskode|passord|şifre|sifre|heslo|jelszó|jelszo|κωδικός|비밀번호"
    r"|パスワード|暗証番号|密码|密碼|口令|pre-?shared\s+key|psk|secret(?:\s+key)?|master\s+key"
    r"|lösenordet|mật\s+khẩu|पासवर्ड|kata\s+sandi(?:nya)?|sandi|şifresi|wachtwoorden|passwörter"
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
_VALUE = r"(\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s,;]{1,200})"
_WORD_VALUE = r"([^\W\d_]{4,40})(?=\s*(?:[.!?,;)]|$|\n))"

# PINs and codes: a code word qualified by what it opens or proves (door code, verification
# code, Bestätigungscode, código de verificación, код подтверждения…). "game PIN" is shared.
_CODE_QUALIFIER = (
    r"door|gate|alarm|entry|entrance|access|keypad|lockbox|keybox|key\s*box|padlock|lock|safe|building"
    r"|garage|house|front[- ]door|verification|verify|security|one[- ]time|2fa|two[- ]factor|mfa|otp"
    r"|sms|log-?in|sign[- ]?in|auth(?:entication)?|unlock|guard|backup|recovery|tür|haustür|eingangs"
    r"|bestätigungs|verifizierungs|sicherheits|zugangs|einmal|d'accès|accès|portail|porte|puerta|portón"
    r"|portão|porta|acceso|anmelde|freischalt|entsperr|tor|cancello|portone|portal|garage\s+door\s+opener"
    r"|storage|bike\s+lock|key\s+safe|lock\s*screen|screen\s+time|voicemail|debit\s+card|credit\s+card"
    r"|2-step|two-step|2-factor|schloss|tresor|fahrrad|garagen|alarm(?:anlagen)?"
)
_CODE_WORD = r"(?:code|codes|kod|kód|código|codigo|codice|код|cod)"
_CODE_LABEL = (
    rf"(?i)(?<![\w\-])(?<!webex\s)(?<!meeting\s)(?<!attendee\s)(?<!conference\s)(?<!host\s)"
    rf"(?:(?<!game\s)(?<!kahoot\s)(?:pin|puk|tan|otp|passcode|digicode|keypad|combo|combination|geheimzahl"
    rf"|one[- ]time\s+pass(?:word|code)?)"
    rf"(?:[\s\-]*(?:code|nummer|number|no\.?))?"
    rf"|(?:{_CODE_QUALIFIER})\s*-?\s*{_CODE_WORD}"
    # "door opener code", "the lockbox has code", "Key safe by the door, code": a qualifier a few
    # words before the code word.
    rf"|(?:{_CODE_QUALIFIER})(?:[\s,]+[\w'’\-]+){{1,4}}?[\s,]+(?:{_CODE_WORD}|pin|combination|combo)"
    rf"|{_CODE_WORD}\s+(?:to|for)\s+(?:get(?:ting)?\s+in|open(?:ing)?|enter(?:ing)?|unlock(?:ing)?)(?:\s+\w+)?"
    rf"|(?:{_CODE_WORD}|pin|clé|clef)\s+(?:de\s+la\s+|de\s+l'|du\s+|de\s+|della\s+|do\s+|da\s+)?"
    rf"(?:el\s+|del\s+|della\s+|dello\s+|do\s+|da\s+)?"
    rf"(?:porte|portail|puerta|porta|portão|entrée|immeuble|alarme|alarma|acceso|accès|vérification"
    rf"|portal|portón|cancello|portone|garaje|allarme|accesso|ingresso|entrada|caja|cassaforte"
    rf"|verificación|verificacion|verifica|sécurité|seguridad|подтверждения|доступа|от\s+\w+|do\s+\w+)"
    rf"|(?:{_CODE_WORD}|pin)\s+(?:for|für|on|of|to|pour|para|per)\s+(?:the\s+|die\s+|das\s+|la\s+|le\s+|el\s+|l')?"
    rf"(?:[\w'’\-]+\s+){{0,2}}?(?:door|gate|garage|alarm|lockbox|keybox|safe|building|house|flat|apartment"
    rf"|router|modem|wifi|wi-fi|haustür|tür|porte|portail|puerta|porta|entrée|immeuble|alarme|alarma|locker)"
    rf"|(?:your|dein|deine|ihr|votre|ton|tu|su|seu|sua|uw|je)\s+(?!(?:promo|discount|coupon|referral|voucher|gift|tracking|zip|postal|area|country|error"
    rf"|status|room|course|booking|invite|invitation|meeting|join|source)\b)(?:[\w\-]+\s+){{0,2}}?(?:code|pin|otp))"
    rf"(?![\w\-])"
)
# Grouped digits first ("739 204", "17-32-08"), so the whole code goes, not its first group.
_CODE_VALUE = r"(\d{1,4}(?:[\- ]\d{1,4}){1,5}|[*#]?\d{3,12}[#*]?|(?=[A-Za-z]*\d)[A-Za-z0-9]{4,10})(?![\w\-])"
_CODE_GAP = r"(?:\s+(?![\d*#])[\w'’.\-]+){0,5}?"
_CODE_CONNECT = (
    r"(?:\s*(?:[:=：→?]|->|\s-\s)\s*|['’]s\s+"
    r"|\s+(?:is|es|est|c'est|ist|lautet|é|è|was|are|is\s+now)\s*:?\s*|\s+)"
)
# Recovery and backup codes: every code-like token in the run after the label.
_CODE_TOKEN = r"(?=[A-Za-z\-]*\d)[A-Za-z0-9]{3,8}(?:-[A-Za-z0-9]{3,8})*"
# Doors, gates and safes named without the word "code": "the office door is 4417 now".
_DOOR = (
    r"(?i)(?<![\w\-])(?:door|gate|garage|lock\s*box|keybox|key\s*box|safe|locker|padlock|lock|alarm|entrance"
    r"|building\s+access|door\s+access|tür|haustür|porte|portail|puerta)(?![\w\-])"
)

_PATTERNS: tuple[SecretPattern, ...] = (
    # Passport and ID card numbers by their label.
    SecretPattern(
        "id-number",
        re.compile(
            r"(?i)\b(?:passport|id\s+card|identity\s+card|driver'?s\s+licen[cs]e|personalausweis|pasaporte|passeport)"
            r"(?:\s*(?:number|no\.?|nr\.?|#|nummer|numéro|número))?\s*(?:is|:)?\s*"
            r"((?=[A-Z]*\d)[A-Z0-9]{6,12})(?![\w\-])"
        ),
        1,
    ),
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
            r"(?i)\b(?:using|use|used|chose|picked|set)\s+([^\s:]{4,200})\s+as\s+(?:the|my|our|a)\s+"
            r"(?:[\w\-]+\s+){0,2}?(?:password|passcode|pin|passphrase)\b"
        ),
        1,
        credential_like,
    ),
    # "login: root / P@ssw0rd", "creds for netflix: me@x.com / popcorn5", "u: deploy p: 9xT!".
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:login|log-in|user(?:name)?|creds?|credentials|account|zugangsdaten|identifiants?|acceso|use)"
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
        credential_like,
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
        direct_value,
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
    # The Wi-Fi QR payload: WIFI:S:<ssid>;T:WPA;P:<password>;;
    SecretPattern("wifi-password", re.compile(r"WIFI:[^\n]*?\bP:((?:[^;\\\n]|\\.)+);"), 1, plausible_value),
    # PINs and qualified codes.
    SecretPattern("pin", re.compile(rf"{_CODE_LABEL}{_CODE_GAP}{_CODE_CONNECT}{_CODE_VALUE}"), 1, code_value),
    SecretPattern(
        "pin",
        re.compile(
            rf"{_DOOR}{_CODE_GAP}\s*(?:[:=]|['’]s|\s(?:is|es|est|ist))\s*"
            r"([*#]?\d{4,8}[#*]?|\d{1,2}(?:-\d{1,2}){2,4})(?![\w\-:/]|[.,]\d)"
        ),
        1,
        code_value,
    ),
    # "use code 918273 to sign in", "enter 4821 to unlock".
    SecretPattern(
        "pin",
        re.compile(
            rf"(?i)\b(?:use|enter|type|with)\s+(?:the\s+)?(?:code|pin|otp)?\s*{_CODE_VALUE}\s+(?:to|for)\s+"
            r"(?:sign|log|verify|confirm|access|unlock|reset|complete|authori[sz]e|login|open)"
        ),
        1,
        code_value,
    ),
    # "disarm with 1129", "unlock it with 4821", "punch in 5521".
    SecretPattern(
        "pin",
        re.compile(
            rf"(?i)\b(?:disarms?|arms?|unlocks?|opens?)\s+(?:it\s+|them\s+)?with\s+(?:the\s+)?(?:code\s+|pin\s+)?{_CODE_VALUE}"
        ),
        1,
        code_value,
    ),
    # "Tu código de Facebook es 66271", "your code from Google: 551902".
    SecretPattern(
        "pin",
        re.compile(
            rf"(?i)\b{_CODE_WORD}\s+(?:de|do|da|di|from|von|für|for)\s+[A-Z][\w\-]+\s*(?:es|is|ist|est|é|è|:)\s*"
            rf"{_CODE_VALUE}"
        ),
        1,
        code_value,
    ),
    # "authenticator shows 018 442".
    SecretPattern(
        "pin",
        re.compile(
            rf"(?i)\b(?:authenticator|authy|2fa\s+app|token\s+generator)\b[^\n\d]{{0,25}}?\s{_CODE_VALUE}"
        ),
        1,
        code_value,
    ),
    # Recovery and backup codes, recovery keys (BitLocker, Apple): the whole run of codes.
    SecretPattern(
        "recovery-code",
        re.compile(
            rf"(?i)\b(?:backup|recovery|rescue|emergency|scratch)[\s\-]+(?:codes?|keys?)\b(?:\s+(?![\d])[\w'’.\-]+){{0,4}}?"
            rf"\s*(?:[:=]|\s(?:is|are))?\s*(?:\d{{1,2}}[).]\s*|[-*•]\s+)?"
            rf"({_CODE_TOKEN}(?:[\s,;]+(?:\d{{1,2}}[).]\s*|[-*•]\s+)?{_CODE_TOKEN})*)"
        ),
        1,
    ),
    # Seed phrases: 12 to 24 lower-case words after the label.
    SecretPattern(
        "seed-phrase",
        re.compile(
            r"(?i)\b(?:(?:seed|recovery|mnemonic|secret|backup)\s+(?:phrase|words)|(?:12|24)\s+words)\b\s*"
            r"(?:[:=]|\s(?:is|are))?\s*"
            r"((?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8})\b"
        ),
        1,
    ),
    # Bank account numbers, CVV and social security numbers, by their label.
    SecretPattern(
        "bank-account",
        re.compile(
            r"(?i)\b(?:account|acct|acc|a/c|konto|kontonummer|compte|cuenta|conta|rekening)"
            r"(?:\s*(?:number|no\.?|nr\.?|#|num|nummer))?"
            r"(?:\s+is)?\s*[:#]?\s*(\d[\d \-]{5,18}\d)(?![\d\-])"
        ),
        1,
    ),
    SecretPattern(
        "card-cvv",
        re.compile(
            r"(?i)\b(?:cvv2?|cvc2?|csc|cid|(?:card\s+)?security\s+code(?:\s+on\s+the\s+back)?)\b\s*(?:is|:|=|-)?\s*(\d{3,4})(?!\d)"
        ),
        1,
    ),
    SecretPattern(
        "ssn",
        re.compile(
            r"(?i)\b(?:ssn|social(?:\s+security)?(?:\s+(?:number|no\.?|#))?)\s*(?:is|:|#)?\s*"
            r"(\d{3}[\- ]?\d{2}[\- ]?\d{4})(?!\d)"
        ),
        1,
    ),
)

# Lower-case words one of which must be in the text for each pattern above, in order.
_PASSWORD_HINTS = (
    "pass", "pw", "psw", "mdp", "kennwort", "contrase", "clave", "senha", "wachtwoord", "hasł", "hasl",
    "парол", "parola", "salasana", "lösenord", "losenord", "adgangskode", "şifre", "sifre", "heslo",
    "jelsz", "κωδικ", "비밀번호", "パスワード", "暗証番号", "密码", "密碼", "口令", "shared key", "psk",
    "secret", "master key", "mật khẩu", "पासवर्ड", "sandi", "seed", "key", "code", "schlüssel", "clé",
)  # fmt: skip
_REVERSE_HINTS = ("pass", "pin", "code", "token", "key", "secret", "pw")
_CODE_HINTS = (
    "pin", "puk", "tan", "otp", "pass", "cod", "kod", "kód", "códi", "код", "combo", "combination",
    "keypad", "clé", "clef", "geheimzahl",
)  # fmt: skip
_DOOR_HINTS = (
    "door", "gate", "garage", "lock", "box", "safe", "alarm", "entrance", "access", "tür", "porte",
    "portail", "puerta",
)  # fmt: skip
PHRASE_PATTERNS = with_hints(
    _PATTERNS,
    (
        ("passport", "id card", "identity card", "licen", "ausweis", "pasaporte", "passeport"),
        _PASSWORD_HINTS,
        _PASSWORD_HINTS,
        _PASSWORD_HINTS,
        _PASSWORD_HINTS,
        _PASSWORD_HINTS,
        _REVERSE_HINTS,
        ("password)", "pw)", "pwd)", "pin)", "passcode)"),
        ("pass", "pin"),
        ("login", "log-in", "user", "cred", "account", "zugangsdaten", "identifiant", "acceso", "use"),
        ("use",),
        ("admin", "root", "user", "guest", "sa", "postgres", "ubuntu", "pi", "test", "demo"),
        ("u",),
        ("auth", "cred", "login"),
        ("wi", "wlan", "wpa", "ssid", "network", "router", "modem"),
        ("wi", "wlan", "ssid", "network"),
        ("wifi:",),
        _CODE_HINTS,
        _DOOR_HINTS,
        ("use", "enter", "type", "with"),
        ("with",),
        ("cod", "cód", "kod", "kód", "код"),
        ("authenticator", "authy", "2fa app", "token generator"),
        ("backup", "recovery", "rescue", "emergency", "scratch"),
        ("phrase", "words"),
        ("account", "acct", "acc", "a/c", "konto", "compte", "cuenta", "conta", "rekening"),
        ("cvv", "cvc", "csc", "cid", "security code"),
        ("ssn", "social"),
    ),
)
