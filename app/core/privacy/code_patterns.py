"""PINs, door and one-time codes, recovery codes, seed phrases and bank/identity numbers in words.

"my pin for the door is 4821", "Your verification code is 583920", "backup codes: 8472-9916 …",
"account number 12345678", "SSN 078-05-1120": a label qualified by what the code opens or proves,
a connector and a value that passes `code_value` (3–12 digits or a short letter-digit code, not a
price, a time or a date). Bare "code" never counts: promo, zip, error, meeting and game codes are
shared openly.
"""

from __future__ import annotations

import re

from app.core.privacy.pattern import SecretPattern, with_hints
from app.core.privacy.seed_phrases import mostly_seed_words
from app.core.privacy.values import code_value

# PINs and codes: a code word qualified by what it opens or proves (door code, verification
# code, Bestätigungscode, código de verificación, код подтверждения…). "game PIN" is shared.
_CODE_QUALIFIER = (
    r"door|gate|alarm|entry|entrance|access|keypad|lockbox|keybox|key\s*box|key\s*safe|padlock|lock|safe|building"
    r"|garage|house|front[- ]door|verification|verify|security|one[- ]time|2fa|two[- ]factor|mfa|otp"
    r"|sms|log-?in|sign[- ]?in|auth(?:entication)?|unlock|guard|backup|recovery|tür|haustür|eingangs"
    r"|bestätigungs|verifizierungs|sicherheits|zugangs|einmal|d'accès|accès|portail|porte|puerta|portón"
    r"|portão|porta|acceso|anmelde|freischalt|entsperr|tor|cancello|portone|portal|garage\s+door\s+opener"
    r"|storage|bike\s+lock|key\s+safe|lock\s*screen|screen\s+time|voicemail|debit\s+card|credit\s+card"
    r"|2-step|two-step|2-factor|schloss|tresor|fahrrad|garagen|alarm(?:anlagen)?|barrier|car\s*park|parking"
    r"|boom\s+gate|turnstile|shed|mailbox|letterbox|postbox|bike\s+(?:store|shed|room|cage)|bin\s+store"
    r"|schließfach|schliessfach|spind|intercom|buzzer|домофона?|подъезда|casillero|buzón|trastero|(?:tele(?:fon|phone)?|online|phone)[\s\-]?banking|banking"
)
_CODE_WORD = r"(?:code|codes|kod|kód|código|codigo|codice|код|cod)"
# Verification, confirmation and access codes named in one word or a fixed phrase of their own
# language, including compounds ("bekräftelsekod", "vahvistuskoodi") and CJK ("验证码").
_OTP_WORDS = (
    r"验证码|驗證碼|校验码|动态码|認証コード|確認コード|認証番号|인증\s*번호|인증\s*코드|확인\s*코드|รหัสยืนยัน"
    r"|mã\s+(?:xác\s+(?:minh|nhận|thực)|otp)|رمز\s+(?:التحقق|التفعيل)|קוד\s+(?:אימות|אבטחה)"
    r"|(?:doğrulama|onay|güvenlik)\s+kodu|kod\s+(?:weryfikacyjny|potwierdzający|potwierdzenia|sms|dostępu)"
    r"|codice\s+(?:di\s+)?(?:verifica|sicurezza|conferma|accesso)"
    r"|código\s+(?:de\s+)?(?:verificación|verificação|seguridad|segurança|confirmación|confirmação|acceso|acesso)"
    r"|code\s+(?:de\s+)?(?:vérification|confirmation|sécurité|validation)"
    r"|(?:verificatie|beveiligings|bevestigings|inlog|bekräftelse|verifierings|säkerhets|engångs"
    r"|bekræftelses|sikkerheds|engangs|vahvistus|turva|kertakäyttö|varmennus)(?:kod|kode|koodi|code)[\w]*"
    r"|код\s+(?:подтверждения|доступа|безопасности|из\s+смс)|(?:ověřovací|potvrzovací|bezpečnostní)\s+kód"
    r"|ellenőrző\s+kód|cod\s+de\s+(?:verificare|confirmare|securitate)|κωδικός\s+(?:επαλήθευσης|ασφαλείας)"
)
_CODE_LABEL = (
    # "Bankkarten-PIN:", "SIM-PIN": a compound ending in PIN (a game's PIN is shared, not secret).
    rf"(?i)(?:(?<![\w\-])(?!game|kahoot)[^\W\d_]{{2,20}}-pin(?![\w\-])|"
    rf"(?<![\w\-])(?<!webex\s)(?<!meeting\s)(?<!attendee\s)(?<!conference\s)(?<!host\s)"
    rf"(?:{_OTP_WORDS}"
    rf"|code\s+(?:secret|confidentiel)|geheimcode|código\s+secreto|codice\s+segreto|(?:doğrulama|onay|güvenlik"
    rf"|giriş)\s+kod(?:u|unuz|un)"
    rf"|(?<!game\s)(?<!kahoot\s)(?:pin|puk|tan|otp|passcode|digicode|keypad|combo|combination|geheimzahl"
    rf"|пин(?:-?код)?|пинкод"
    rf"|magic\s+(?:link\s+)?code|sign-?in\s+code|login\s+code"
    rf"|one[- ]time\s+pass(?:word|code)?)"
    rf"(?:[\s\-]*(?:code|nummer|number|no\.?))?"
    rf"|(?:{_CODE_QUALIFIER})\s*-?\s*(?:{_CODE_WORD}|pin)"
    # "door opener code", "the lockbox has code", "Key safe by the door, code": a qualifier a few
    # words before the code word.
    rf"|(?:{_CODE_QUALIFIER})(?:[\s,]+[\w'’\-]+){{0,4}}?[\s,]+(?:{_CODE_WORD}|pin|combination|combo)"
    rf"|{_CODE_WORD}\s+(?:to|for)\s+(?:get(?:ting)?\s+in|open(?:ing)?|enter(?:ing)?|unlock(?:ing)?)(?:\s+\w+)?"
    rf"|(?:{_CODE_WORD}|pin|clé|clef)\s+(?:de\s+la\s+|de\s+l['’]|d['’]|du\s+|de\s+|della\s+|do\s+|da\s+)?"
    rf"(?:el\s+|del\s+|della\s+|dello\s+|do\s+|da\s+)?"
    rf"(?:porte|portail|puerta|porta|portão|entrée|immeuble|alarme|alarma|acceso|accès|vérification"
    rf"|portal|portón|cancello|portone|garaje|allarme|accesso|ingresso|entrada|caja|cassaforte"
    rf"|verificación|verificacion|verifica|sécurité|seguridad|подтверждения|доступа|от\s+\w+|do\s+\w+"
    rf"|trastero|buzón|casillero|garage|domofon|домофона|подъезда)"
    rf"|(?:{_CODE_WORD}|pin)\s+(?:for|für|on|of|to|pour|para|per|van|voor)\s+"
    rf"(?:the\s+|die\s+|das\s+|la\s+|le\s+|el\s+|l'|de\s+|het\s+)?"
    rf"(?:[\w'’\-]+\s+){{0,2}}?(?:door|gate|garage|alarm|lockbox|keybox|safe|building|house|flat|apartment"
    rf"|router|modem|wifi|wi-fi|haustür|tür|porte|portail|puerta|porta|entrée|immeuble|alarme|alarma|locker"
    rf"|deur|voordeur|poort|fietsenstalling|stalling|berging|kluis|brievenbus|schuur)"
    rf"|(?:your|dein|deine|ihr|votre|ton|tu|su|seu|sua|uw|je)\s+(?!(?:promo|discount|coupon|referral|voucher|gift|tracking|zip|postal|area|country|error"
    rf"|status|room|course|booking|invite|invitation|meeting|join|source)\b)(?:[\w\-]+\s+){{0,2}}?(?:code|pin|otp)))"
    rf"(?![\w\-])"
)
# Grouped digits first ("739 204", "17-32-08"), so the whole code goes, not its first group.
_CODE_VALUE = (
    r"(\d{1,4}(?:[\- ]\d{1,4}){1,5}|[*#]?\d{3,12}[#*]?|(?=[^\W\d_]*\d)[^\W_]{4,10}"
    # "LKQ-77P": capitals and digits in short dashed groups, as sign-in codes are sent.
    r"|(?=[A-Z\-]*\d)(?-i:[A-Z0-9]{2,6}(?:-[A-Z0-9]{2,6}){1,2}))(?![\w\-])"
)
# Gap words may be "7pm" or "2nd", never a bare number: that is the value.
_CODE_GAP = r"(?:\s+(?![*#]|\d+(?![A-Za-z]))[\w'’.\-]+){0,6}?"
_CODE_CONNECT = (
    r"(?:\s*(?:[:=：→?]|->|\s[-–—]\s)\s*|['’]s\s+"
    r"|\s+(?:is|es|est|c'est|ist|lautet|é|è|was|are|is\s+now)\s*:?\s*|\s+)"
)
# Recovery and backup codes: every code-like token in the run after the label.
_CODE_TOKEN = r"(?=[A-Za-z\-]*\d)[A-Za-z0-9]{3,16}(?:-[A-Za-z0-9]{3,16})*"
# Doors, gates and safes named without the word "code": "the office door is 4417 now".
_DOOR = (
    r"(?i)(?<![\w\-])(?:door|gate|garage|lock\s*box|keybox|key\s*box|safe|locker|padlock|lock|alarm|entrance"
    r"|building\s+access|door\s+access|tür|haustür|porte|portail|puerta|portón|portão|cancello|portone|deur"
    r"|drzwi|brama|дверь|калитка|ворота|kapı|dörr|dør|unlock|phone\s+unlock|screen\s+lock|mailbox)(?![\w\-])"
)

_PATTERNS: tuple[SecretPattern, ...] = (
    # PINs and qualified codes.
    SecretPattern(
        "pin", re.compile(rf"{_CODE_LABEL}{_CODE_GAP}{_CODE_CONNECT}[\[(]?{_CODE_VALUE}"), 1, code_value
    ),
    SecretPattern(
        "pin",
        re.compile(
            rf"{_DOOR}{_CODE_GAP}\s*(?:[:=]|['’]s|\s(?:is|es|est|ist))\s*"
            r"([*#]?[A-Z]?\d{4,8}[#*]?|\d{1,2}(?:-\d{1,2}){2,4}|\d(?: \d){3,7})(?![\w\-:/]|[.,]\d)"
        ),
        1,
        code_value,
    ),
    # "street door 1590,", "lockbox 4-0-9-2 on the left": a door or box and its code, no verb.
    SecretPattern(
        "pin",
        re.compile(
            r"(?i)(?<![\w\-])(?:door|lock\s*box|key\s*box|key\s*safe|keypad|padlock|tür|haustür|porte|portail|puerta)"
            r"\s+([*#]?\d{4,8}[#*]?|\d(?:-\d){3,7}|\d(?: \d){3,7})"
            r"(?=\s*(?:[,;.!)]|$|\n|\s(?:on|then|and|please|at\s+the)\b))"
        ),
        1,
        code_value,
    ),
    SecretPattern(
        "pin",
        re.compile(
            rf"{_DOOR}\s*[:=]?\s*(?:set|enter|type|press|punch(?:\s+in)?|key\s+in|dial|code)\s+"
            r"([*#]?\d{4,8}[#*]?|\d(?: \d){3,7}|\d(?:-\d){3,7})(?![\w\-:/]|[.,]\d)"
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
    # "disarm with 1129", "unlock it with 4821", "disarm the alarm with 9087",
    # "el portal se abre con 1357", "Tür geht mit 2468 auf".
    SecretPattern(
        "pin",
        re.compile(
            r"(?i)\b(?:disarms?|arms?|unlocks?|opens?|abre|apre|ouvre|öffnet|geht|otwiera|opent|åbner|öppnas"
            r"|öppnar|avaa|aukeaa)\s+(?:it\s+|them\s+|sich\s+|se\s+|si\s+|the\s+[^\W\d_]+\s+)?"
            r"(?:with|con|com|avec|mit|met|med|kodem|koodilla)\s+"
            r"(?:the\s+|dem\s+|el\s+|le\s+|il\s+|o\s+)?(?:code\s+|pin\s+|código\s+|codice\s+|kod\s+)?"
            rf"{_CODE_VALUE}"
        ),
        1,
        code_value,
    ),
    # "punch in 5521", "punch 7402# on the pad", "key in 0404 at the side gate", "disarm 4455".
    SecretPattern(
        "pin",
        re.compile(
            r"(?i)\b(?:punch(?:es|ed)?(?:\s+in)?|key(?:ed)?\s+in|tap\s+in|disarm(?:s|ed)?(?:\s+it|\s+the\s+alarm)?"
            r"|unlock(?:s|ed)?\s+(?:it|the\s+\w+))\s+(?:the\s+)?(?:code\s+|pin\s+)?"
            r"([*#]?\d{4,8}[#*]?|\d{1,4}(?:[\- ]\d{1,4}){1,3})(?![\w\-:/]|[.,]\d)"
        ),
        1,
        code_value,
    ),
    # "Tu código de Facebook es 66271", "your code from Google: 551902".
    SecretPattern(
        "pin",
        re.compile(
            r"(?i)(?<!class\s)(?<!promo\s)(?<!discount\s)(?<!coupon\s)(?<!gift\s)(?<!referral\s)(?<!invite\s)"
            r"(?<!course\s)(?<!join\s)(?<!meeting\s)(?<!room\s)(?<!game\s)(?<!booking\s)(?<!voucher\s)"
            rf"\b{_CODE_WORD}\s+(?:de|do|da|di|from|von|für|for)\s+(?-i:(?:[A-Z][\w\-]+\s+){{0,2}}[A-Z][\w\-]+)"
            rf"\s*(?:es|is|ist|est|é|è|:)\s*"
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
            rf"(?i)\b(?:backup|recovery|rescue|emergency|scratch)[\s\-]+(?:codes?|keys?)\b(?:\s*\([^)\n]{{1,30}}\))?(?:\s+(?![\d])[\w'’.\-]+){{0,6}}?"
            rf"\s*(?:[:=]|\s(?:is|are))?\s*(?:\d{{1,2}}[).]\s*|[-*•]\s+)?"
            rf"({_CODE_TOKEN}(?:[\s,;/|]+(?:\d{{1,2}}[).]\s*|[-*•]\s+)?{_CODE_TOKEN})*)"
        ),
        1,
    ),
    # Seed phrases: 12 to 24 lower-case words after the label.
    SecretPattern(
        "seed-phrase",
        re.compile(
            r"(?i)\b(?:(?:seed|recovery|mnemonic|secret|backup)\s+(?:phrase|words)|(?:12|24)\s+words"
            r"|(?:wallet|recovery|backup|secret)\s+(?:seed|mnemonic)|(?:seed|mnemonic)(?=\s*[:=]))\b\s*"
            r"(?:[:=]|\s(?:is|are))?\s*[\"'“]?"
            r"((?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8})\b"
        ),
        1,
        mostly_seed_words,
    ),
    # "PIN 0000 changed to 6719": the new code after the change.
    SecretPattern(
        "pin",
        re.compile(
            rf"{_CODE_LABEL}[^\n.]{{0,30}}?\b(?:changed|set|reset|updated)\s+(?:it\s+)?to\s+{_CODE_VALUE}"
        ),
        1,
        code_value,
    ),
    # "WhatsApp code: 418-263", "Steam code - 55 21 09": a service's code, six digits as sent.
    SecretPattern(
        "pin",
        re.compile(
            r"(?<![\w\-])(?!(?i:promo|discount|coupon|gift|referral|zip|postal|post|area|country|error|status|http"
            r"|qr|bar|source|dress|morse|color|colour|iso|tax|sort|swift|bic|bank|branch|product|voucher)\b)"
            r"[A-Z][\w]+\s+(?i:code)\s*(?:[:：=]|\s[-–—])\s*(\d{3}[\- ]?\d{3})(?![\d\-])"
        ),
        1,
    ),
    # "验证码 662910", "登录验证码：804213": CJK labels glue to the word before them.
    SecretPattern(
        "pin",
        re.compile(
            r"(?:验证码|驗證碼|校验码|动态码|認証コード|確認コード|認証番号|인증\s*번호|인증\s*코드|확인\s*코드|รหัสยืนยัน|รหัส\s*OTP"
            r"|暗証番号|暗码|密码|密碼|PIN\s*码|PIN\s*コード|비밀번호|핀\s*번호)"
            r"\s*(?:[:：是为は는은]\s*)?[\[(【「]?\s*(\d{4,8})(?!\d)"
        ),
        1,
    ),
    # "the bank just texted 829 014": a six-digit number right after "texted".
    SecretPattern(
        "pin",
        re.compile(
            r"(?i)\b(?:texted|sms'?d|sent)\s+(?:me\s+|you\s+|us\s+)?(?:the\s+|a\s+)?(?:code\s+)?"
            r"(?<![\d.,:])(\d{3}[ \-]?\d{3})(?![\d\-]|[.,:]\d)"
        ),
        1,
    ),
    # "the code they texted you? … ok it's 730 144": a code someone sent, then a six-digit number.
    SecretPattern(
        "pin",
        re.compile(
            r"(?i)\b(?:code|pin|otp)\b[^\n\d]{0,30}?\b(?:texted|sent|sms(?:'?d)?|got|received|emailed|gave|came"
            r"|arrived|popped\s+up|says|said|reads)\b"
            r"[^\n\d]{0,60}?(?<![\d.,:])(\d{3}[ \-]?\d{3})(?![\d.,:])"
        ),
        1,
    ),
    # "code 71603, do not give it to anyone", "G-448120 is your code. Don't share it": a number
    # with the warning every sender of one-time codes adds.
    SecretPattern(
        "pin",
        re.compile(
            r"(?i)\bcode\b[^\n\d]{0,20}?(?<![\d.,:])(\d{4,8})(?!\d|[.,:]\d)[^\n\d]{0,30}?"
            r"\b(?:do\s+not|don['’]t|never|nicht|ne\s+pas|no\s+lo|non)\s+(?:\w+\s+)?"
            r"(?:share|give|tell|forward|send|weiter|teilen|partag|compart|condivid)"
        ),
        1,
        code_value,
    ),
    # pyotp.TOTP('JBSWY3DPEHPK3PXQ'), HOTP("…"): a one-time-password seed in code.
    SecretPattern("otp-seed", re.compile(r"\b[HT]OTP\(\s*[\"']([A-Z2-7]{16,})=*[\"']"), 1),
    # An authenticator's setup key typed by hand: base32 in groups of four.
    SecretPattern(
        "otp-seed",
        re.compile(
            r"(?i)\b(?:setup|secret|manual|2fa|totp|mfa|authenticator)\s+key\b[^\n]{0,20}?(?:\bis\b|:)\s*"
            r"((?-i:[A-Z2-7]{4}(?:\s?[A-Z2-7]{4}){3,15}))(?![A-Za-z0-9])"
        ),
        1,
    ),
    # Bank account numbers, CVV and social security numbers, by their label.
    SecretPattern(
        "bank-account",
        re.compile(
            # A cloud or platform account ("AWS account 1234…", "GCP project") is an id, not a bank's.
            r"(?i)(?<!aws\s)(?<!gcp\s)(?<!azure\s)(?<!cloud\s)(?<!billing\s)(?<!aws\s\s)"
            r"\b(?:account|acct|acc|a/c|konto|kontonummer|compte|cuenta|conta|rekening|checking|chequing|savings"
            r"|konta|rachunk[aiu]|rachunek|účet|účtu|számla(?:szám)?|tilinumero|kontonr)"
            r"(?:\s*(?:number|no\.?|nr\.?|#|num|nummer))?"
            # "numer konta do przelewu: 61 1090 …", "account for the deposit: …": a short purpose.
            r"(?:\s+(?:for|do|für|pour|para|per|voor)(?:\s+[^\W\d]+){1,2})?"
            # Up to 26 digits in groups: Polish NRB and other domestic forms of an IBAN.
            r"(?:\s+is)?\s*[:#]?\s*(\d[\d \-]{5,38}\d)(?![\d\-])"
        ),
        1,
    ),
    # UK sort codes and Australian BSBs travel with the account number: "sort code 30-96-14".
    SecretPattern(
        "bank-account",
        re.compile(
            # A bare "Sort" only with the dashed form ("Sort 09-01-28").
            r"(?i)\b(?:(?:sort[\s\-]*code|bsb)\s*(?:is|:|=|#)?\s*|sort\s*:?\s*(?=\d{2}-\d{2}-\d{2}(?![\d\-])))"
            r"(\d{2}[\- ]\d{2}[\- ]\d{2}|\d{3}-\d{3}|\d{6})(?![\d\-])"
        ),
        1,
    ),
    SecretPattern(
        "card-cvv",
        re.compile(
            r"(?i)\b(?:cvv2?|cvc2?|csc|cid|(?:card\s+)?security\s+code(?:\s+on\s+the\s+back)?"
            r"|(?:karten)?prüf(?:ziffer|nummer|zahl)|cryptogramme(?:\s+visuel)?|código\s+de\s+seguridad)\b\s*(?:is|:|=|-)?\s*(\d{3,4})(?!\d)"
        ),
        1,
    ),
    # "4111 1111 1111 1111 / 10/27 / 604": after a card number and its expiry, the bare CVC.
    SecretPattern(
        "card-cvv",
        re.compile(
            r"(?:\d[ \-]?){12,18}\d\s*[/,|;]?\s*(?:(?:exp\w*|valid|gültig\s+bis)\s*:?\s*)?"
            r"(?:0[1-9]|1[0-2])\s*/\s*(?:20)?\d{2}\s*[/,|;]?\s*(\d{3,4})(?![\d/.])"
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
    # A UK National Insurance number by its label: two letters, six digits, a letter A-D.
    SecretPattern(
        "ssn",
        re.compile(
            r"(?i)\b(?:NI|NINO|national\s+insurance)(?:\s+(?:number|no\.?|nr\.?|#))?\s*(?:is|:|#)?\s*"
            r"((?-i:[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]))(?![\w])"
        ),
        1,
    ),
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
)

# Lower-case words one of which must be in the text for each pattern above, in order.
_CODE_HINTS = (
    "pin", "puk", "tan", "otp", "pass", "cod", "kod", "kód", "códi", "код", "combo", "combination",
    "keypad", "clé", "clef", "geheimzahl", "secret", "confidentiel", "segreto", "secreto", "验证码",
    "驗證碼", "校验码", "动态码", "コード", "認証番号", "번호", "코드", "รหัส", "mã", "رمز", "קוד",
    "kodu", "koodi", "kode",
)  # fmt: skip
_DOOR_HINTS = (
    "door", "gate", "garage", "lock", "box", "safe", "alarm", "entrance", "access", "tür", "porte",
    "portail", "puerta", "portón", "portão", "cancello", "portone", "deur", "drzwi", "brama", "дверь",
    "калитка", "ворота", "kapı", "dörr", "dør", "unlock", "mailbox", "intercom", "buzzer", "домофон",
)  # fmt: skip
CODE_PATTERNS = with_hints(
    _PATTERNS,
    (
        _CODE_HINTS,
        _DOOR_HINTS,
        ("door", "lock", "box", "safe", "keypad", "tür", "porte", "portail", "puerta"),
        _DOOR_HINTS,
        ("use", "enter", "type", "with"),
        (
            "arm",
            "unlock",
            "open",
            "abre",
            "apre",
            "ouvre",
            "öffnet",
            "geht",
            "otwiera",
            "åbner",
            "öppna",
            "avaa",
            "aukeaa",
        ),
        ("punch", "key", "tap", "disarm", "unlock"),
        ("cod", "cód", "kod", "kód", "код"),
        ("authenticator", "authy", "2fa app", "token generator"),
        ("backup", "recovery", "rescue", "emergency", "scratch"),
        ("phrase", "words", "seed", "mnemonic"),
        ("changed", "set", "reset", "updated"),
        ("code",),
        (
            "验证码",
            "驗證碼",
            "校验码",
            "动态码",
            "コード",
            "認証番号",
            "인증",
            "확인",
            "รหัส",
            "暗",
            "密",
            "pin",
            "번호",
        ),
        ("texted", "sent", "sms"),
        (
            "texted",
            "sent",
            "sms",
            "got",
            "received",
            "emailed",
            "gave",
            "came",
            "arrived",
            "popped",
            "says",
            "said",
            "reads",
        ),
        ("share", "give", "tell", "forward", "send", "weiter", "teilen", "partag", "compart", "condivid"),
        ("otp(",),
        ("key",),
        (
            "account",
            "acct",
            "acc",
            "a/c",
            "konto",
            "compte",
            "cuenta",
            "conta",
            "rekening",
            "checking",
            "chequing",
            "savings",
            "kont",
            "rachun",
            "účet",
            "účtu",
            "számla",
            "tilinumero",
        ),
        ("sort", "bsb"),
        ("cvv", "cvc", "csc", "cid", "security code", "prüf", "cryptogramme", "código de seguridad"),
        ("/",),
        ("ssn", "social"),
        ("ni ", "nino", "national insurance"),
        ("passport", "id card", "identity card", "licen", "ausweis", "pasaporte", "passeport"),
    ),
)
