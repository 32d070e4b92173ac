"""A multilingual lexicon of credential concepts: which words make a line about a secret, or not.

The phrase patterns know phrasings ("password: …", "code d'entrée : …"); this knows *concepts*, in
about 25 languages with their inflections, so the learned token scorer (`token_scorer.py`) can ask
"is there a password, code, PIN, key, login, unlock, door, one-time-code or secret word near this
token, and how far back?" whatever the phrasing. A second family (`open`) names things people share
openly (orders, bookings, versions, hashes, meetings, promo codes), and `name` labels user and
network names. Words are looked up in dictionaries, not matched by one large regex: the detector
runs on every search result, and a lookup per word costs a few microseconds per message.

Entries: `word` matches the whole word, `stem*` any word starting with it (case endings: "hasła",
"паролем", "lösenordet", "kodunuz"), `*suffix` a compound ending with it ("Haustürcode"),
`two_words` a phrase. Words are split at anything but letters and digits, so `DB_PASSWORD`,
`api.secret` and `Bankkarten-PIN` name their concepts.
"""

from __future__ import annotations

import functools
import re

LEXICON: dict[str, str] = {
    "pw": """
        password passwords passwort* passwd passw* passcode* passphrase* pass pwd pswd psw pw mdp
        mot_de_passe mots_de_passe kennwort* kennwörter contraseña* contrasena* contrasenya contrasinal
        clave senha senhas wachtwoord* wagwoord* hasło hasła hasłem haslo hasla парол* parola* parole
        parool* salasana* lösenord* losenord* adgangskode* kodeord* passord* şifre* sifre* heslo* hesla
        jelszó* jelszo* jelszav* κωδικός συνθηματικό mật_khẩu पासवर्ड kata_sandi kata_laluan sandi
        lozink* лозинк* geslo gesla slaptažod* lykilorð pasahitza cyfrinair nenosiri fjalëkalim* psk
        wpa wpa2 wpa3 netzwerkschlüssel* netzwerkschluessel* wlan_schlüssel* sicherheitsschlüssel*
        security_key network_key memorable_word memorable_information memorable_info security_answer
        secret_answer security_question kennung
    """,
    "code": """
        code codes código códigos codigo codigos codice codici kod* kód* koodi* код* κωδικ* combination
        combo zahlenschloss geheimzahl digits cijfers chiffres tan mtan pushtan smstan *code *codes
        *kode *koden *kod *kodu *codice digicode
    """,
    "pin": """
        pin pins pincode* pinkod* pinnummer puk puk2 cvv cvv2 cvc cvc2 csc пин* pinu pinem
        kartenprüfnummer prüfziffer cryptogramme *pin
    """,
    "key": """
        key keys schlüssel* schluessel* clé cle clef clave chave chiave sleutel* klucz* ключ* anahtar*
        avain* nøkkel* nyckel* nøgle* kulcs* klíč*
    """,
    "login": """
        login logins log_in logon sign_in signin sign_on anmeld* zugang* zugangsdaten benutzerkonto
        konto* identifiant* connexion compte cuenta acceso conta accesso inlog* logowan* zaloguj*
        вход* аккаунт* учетн* кабінет* кабинет* giriş hesap* tunnus* bejelentkez* account accounts
        creds cred credentials credential auth basic basic_auth sudo ssh sftp ftp rdp vnc admin root
        u p storepass keypass requirepass masterauth cookie session sessionid csrf csrftoken
        keychain keyring 1password bitwarden lastpass keepass keepassxc dashlane nordpass enpass
    """,
    "name": """
        username usernames user users userid user_id user_name ssid network_name netzwerkname
        benutzername nom_d utilisateur usuario nome_utente użytkownik gebruikersnaam логин* loginname
        email e_mail mail handle nick nickname account_name acc_name name
    """,
    "net": "wifi wi_fi wlan ssid hotspot router netzwerk* réseau internet",
    "otp": """
        otp 2fa mfa totp one_time onetime verification verify verif* sms texted text authenticator
        backup_code backup_codes recovery einmal* bestätigung* bestaetigung* vérification verificación
        verifica* подтвержд* doğrulama onay weryfik* bevestig* vahvistus* megerősít* seed mnemonic
        验证码 驗證碼 认证码 認証コード 인증번호 확인코드
    """,
    "unlock": """
        unlock unlocks unlocked unlocking open opens opened decrypt* encrypt* vault* safe lockbox keysafe
        keybox key_box key_safe padlock lock locker locks tresor* schließfach* schliessfach* schloss
        casier cadenas candado taquilla lucchetto armadietto kluis kłódk* szafk* замок* сейф* ячейк*
        zip 7z rar archive protected
    """,
    "door": """
        door doors gate gates entry entrance buzz buzzer intercom alarm garage keypad pad porte portail
        interphone tür türe haustür tor klingel puerta portón portal portão porta portone citofono
        deur poort drzwi brama domofon* домофон* двер* подъезд* kapı portti barrier trastero storage
        shed bike fietsenstalling cellar keller
    """,
    "secret": """
        secret secrets secreto secreta geheim* segreto segreta секрет* gizli salainen token tokens
        apikey api_key api_keys bearer private privé confidential do_not_share don_t_share dont_share
        nicht_weitergeben ne_partagez no_compartas не_сообщайте kimseyle_paylaşma memorable answer
        maiden social ssn passport personalausweis acc acct a_c bsb routing sort iban swift tax_id
        steuer_id nif dni nie bsn pesel
    """,
    "open": """
        order orders tracking track shipment parcel package booking reservation confirmation invoice
        receipt ref reference ticket case claim issue pr commit sha hash checksum build release version
        flight seat room zip_code postal postcode area_code promo* coupon* discount* voucher* gift
        meeting zoom webinar teams conference dial_in id sku model serial part isbn error status exit
        port chapter page step line table bus train platform episode level score apt suite unit
        customer member membership policy patient bestell* sendung* buchung* rechnung* commande facture
        réservation pedido reserva factura ordine prenotazione fattura заказ* бронь* sipariş*
        rezerwacj* zamówien* bestelling boeking referral invite invitation game friend lobby hashtag
        emoji tag branch image container docker pip npm python node question quiz puzzle wordle riddle
        answer_key price cost costs eur usd km kg min mins minutes hours hour days day weeks years year
        am pm utc fingerprint product ean upc barcode integrity ulid uuid guid md5 sha1 sha256 sha512
        crc crc32 request trace correlation subnet vpc ami sg eni arn snap vol locale lang charset
        encoding timeout ttl max min limit limits size count length postleitzahl qr qrcode barcode unicode
        budget quota rate retries workers threads ports expiry duration interval delay seconds ms
        hashed hashing algorithm algo cipher argon2 argon2id bcrypt scrypt pbkdf2 aes rsa ed25519
        kahoot quizizz blooket mentimeter menti slido poll audience last_4 last_four ending_in ends_in
        endet_auf se_termine_par termina_en
        opcode decode encode shortcode geocode dresscode sourcecode source dress gutscheincode
        rabattcode promocode 注文 订单 訂單 주문 予約 预订 預訂 예약
    """,
}
# Scripts written without spaces: looked for as substrings, and only when the text holds them.
CJK: dict[str, str] = {
    "pw": "パスワード 暗証番号 密码 密碼 口令 비밀번호 암호 รหัสผ่าน סיסמ كلمة_المرور رمز_عبور",
    "code": "コード 代码 代碼 暗証 코드 번호 รหัส 验证码 驗證码 驗證碼 认证码 認証コード 인증번호 확인코드",
    "login": "ログイン 登录 登錄 登陆 로그인 アカウント 账号 賬號 帐号 계정",
    "net": "无线 無線 ワイファイ 와이파이",
    "key": "鍵 キー 密钥 秘钥 金鑰",
    "door": "ドア オートロック 门禁 門禁 대문 현관",
    "unlock": "ロッカー 解锁 解鎖 잠금",
    "open": "注文 订单 訂單 주문 予約 预订 預訂 예약",
}
CATEGORIES = tuple(LEXICON)
_WORD = re.compile(r"[^\W_]+")
_CJK_CHARS = re.compile(r"[\u0590-\u06ff\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
MAX_PHRASE = 3
_PUNCT = ".,!?;:'\"()[]…“”‘’«»*"


@functools.cache
def _tables() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Whole words and phrases, stems, compound suffixes -> category (first category wins)."""
    exact: dict[str, str] = {}
    stems: dict[str, str] = {}
    suffixes: dict[str, str] = {}
    for cat, words in LEXICON.items():
        for entry in words.split():
            entry = entry.replace("_", " ")
            if entry.startswith("*"):
                suffixes.setdefault(entry[1:], cat)
            elif entry.endswith("*"):
                stems.setdefault(entry[:-1], cat)
            else:
                exact.setdefault(entry, cat)
    return exact, stems, suffixes


@functools.cache
def _cjk() -> re.Pattern[str]:
    space = r"\s*"
    groups = []
    for cat, words in CJK.items():
        alternation = "|".join(re.escape(w).replace("_", space) for w in words.split())
        groups.append(f"(?P<{cat}>{alternation})")
    return re.compile("|".join(groups))


@functools.cache
def _phrase_starts() -> frozenset[str]:
    return frozenset(w.split()[0] for w in _tables()[0] if " " in w)


# Chat repeats its words ("the", "you", "I"): each distinct word is looked up once.
@functools.lru_cache(maxsize=65536)
def _lookup(word: str) -> str | None:
    exact, stems, suffixes = _tables()
    cat = exact.get(word)
    if cat is not None:
        return cat
    for n in range(min(len(word), 12), 1, -1):
        cat = stems.get(word[:n])
        if cat is not None:
            return cat
    for n in range(3, min(len(word) - 2, 10) + 1):
        cat = suffixes.get(word[-n:])
        if cat is not None:
            return cat
    return None


# word -> category ("" for none): a plain dict read in C by set and map operations.
_SEEN: dict[str, str] = {}
_CREDENTIAL = frozenset(c for c in LEXICON if c not in ("open", "name"))


def _words(lowered: str) -> list[str]:
    # str.split and isalnum are several times faster than a word regex over the whole text.
    out: list[str] = []
    for chunk in lowered.split():
        if chunk.isalnum():
            out.append(chunk)
            continue
        chunk = chunk.strip(_PUNCT)
        if chunk.isalnum():
            out.append(chunk)
        elif chunk:
            out.extend(_WORD.findall(chunk))
    return out


@functools.cache
def _credential_phrases() -> dict[str, tuple[str, ...]]:
    """First word -> the credential phrases it starts (" mot de passe ", " sign in ")."""
    out: dict[str, list[str]] = {}
    for w, cat in _tables()[0].items():
        if " " in w and cat not in ("open", "name"):
            out.setdefault(w.split()[0], []).append(f" {w} ")
    return {k: tuple(v) for k, v in out.items()}


def _categories(distinct: set[str]) -> set[str]:
    new = distinct.difference(_SEEN)  # loops over the words, not the dict
    if new:
        if len(_SEEN) > 200_000:
            _SEEN.clear()
        for word in new:
            _SEEN[word] = _lookup(word) or ""
    return set(map(_SEEN.__getitem__, distinct))


def has_credential(text: str) -> bool:
    """Whether any credential concept (not `open`, not `name`) is in the text: the cheap gate."""
    if not text.isascii() and _CJK_CHARS.search(text):
        return any(cat not in ("open", "name") for *_, cat in concepts(text))
    words = _words(text.lower())
    distinct = set(words)
    if not _CREDENTIAL.isdisjoint(_categories(distinct)):
        return True
    phrases = _credential_phrases()
    firsts = distinct.intersection(phrases)
    if not firsts:
        return False
    joined = f" {' '.join(words)} "
    return any(p in joined for first in firsts for p in phrases[first])


def concepts(text: str) -> list[tuple[int, int, str]]:
    """(start, end, category) of every concept word or phrase, in text order."""
    exact = _tables()[0]
    starts = _phrase_starts()
    lowered = text.lower()
    cjk = not text.isascii() and _CJK_CHARS.search(text) is not None
    # Most messages hold no concept word: one C-level split and cached lookups say so.
    distinct = set(_words(lowered))
    if not cjk and _categories(distinct) <= {""} and starts.isdisjoint(distinct):
        return []
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(lowered)]
    out: list[tuple[int, int, str]] = []
    i = 0
    while i < len(words):
        for n in range(MAX_PHRASE, 1, -1):  # phrases first: "mot de passe", "sign in", "zip code"
            if words[i][2] in starts and i + n <= len(words):
                cat = exact.get(" ".join(w for _, _, w in words[i : i + n]))
                if cat is not None:
                    out.append((words[i][0], words[i + n - 1][1], cat))
                    i += n
                    break
        else:
            cat = _lookup(words[i][2])
            if cat is not None:
                out.append((words[i][0], words[i][1], cat))
            i += 1
    if cjk:
        out += [(m.start(), m.end(), m.lastgroup or "") for m in _cjk().finditer(text)]
        out.sort()
    return out
