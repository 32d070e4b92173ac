"""Password words in the languages our users write, shared by the phrase patterns and the scorer."""

from __future__ import annotations

# Latin and Cyrillic words may take a definite or case ending ("lösenordet", "adgangskoden",
# "паролем", "salasanasi"); `pass` and `pw` are whole words (the callers add word edges).
PASSWORD_WORDS = (
    r"passwords?|passwort\w*|passwd|passcode|passphrase|pwd|psw|pw|pass|mdp|mot\s+de\s+passe|kennw[oö]rt\w*"
    r"|contraseñas?|contrasena|contrasenya|contrasinal|clave|senhas?|wachtwoord\w*|wagwoord\w*|hasł[oa]|haslo"
    r"|парол\w*|parol[ae]\w*|parool\w*|salasana\w*|lösenord\w*|losenord\w*|adgangskode\w*|kodeord\w*"
    r"|passord\w*|şifre\w*|sifre\w*|hesl[oa]|jelsz[óo]\w*|κωδικός|συνθηματικό|비밀번호|암호|パスワード"
    r"|暗証番号|密码|密碼|口令|mật\s+khẩu|पासवर्ड|kata\s+(?:sandi|laluan)(?:nya)?|sandi|lozink\w*|лозинк\w*"
    r"|gesl[oa]|slaptažodis|lykilorð|pasahitza|cyfrinair|nenosiri|fjalëkalim\w*|ה?סיסמ[הא]"
    r"|كلمة\s+(?:المرور|السر)|رمز\s+عبور|รหัสผ่าน|পাসওয়ার্ড|passwörter"
    # Wi-Fi keys by their routers' and systems' own names.
    r"|(?:wlan-?|wpa-?|wi-?fi-?)?netzwerkschl(?:ü|ue)ssel|wlan-schl(?:ü|ue)ssel|wpa-?schl(?:ü|ue)ssel"
    r"|sicherheitsschl(?:ü|ue)ssel|clé\s+de\s+sécurité(?:\s+(?:du\s+)?réseau)?|clave\s+de\s+(?:red|seguridad)"
    r"|chave\s+de\s+segurança|(?:network\s+)?security\s+key|wpa2?\s+key"
)
# The security question's answer is a password by another name.
SECURITY_ANSWER = (
    r"security\s+answer|secret\s+answer|memorable\s+(?:word|info(?:rmation)?|data)"
    r"|answer\s+to\s+(?:the|my)\s+security\s+question"
)
