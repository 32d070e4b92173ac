"""The catalogue of credential formats the redactor knows: one named regex (plus a check) per kind.

Why hand-written rather than `detect-secrets`: its plugins are the same regexes (AWS, GitHub,
Slack, Stripe, JWT, private keys…), but it scans line by line through a process-global settings
object, pulls in `requests` and `pyyaml`, and its high-entropy plugins flag every git SHA and
content hash, which are exactly the look-alikes we must leave alone. Vendor prefixes are in
`vendor_patterns.py`; this module holds the structural forms (key blocks, URLs, headers, command
lines, config files); entropy is only trusted next to a credential word. Secrets said in words
are `phrase_patterns.py` (passwords, logins, Wi-Fi) and `code_patterns.py` (PINs and codes).
"""

from __future__ import annotations

import re

from app.core.privacy.pattern import SecretPattern, with_hints
from app.core.privacy.values import (
    code_value,
    credential_like,
    direct_value,
    high_entropy,
    plausible_value,
    shannon_entropy,
    url_secret,
)
from app.core.privacy.vendor_patterns import VENDOR_PATTERNS

__all__ = ["FORMAT_PATTERNS", "SecretPattern", "shannon_entropy", "with_hints"]


_WORD_END = r"(?![A-Za-z0-9_\-])"
# Keywords that may be glued to a prefix (`adminPassword`, `DB_PASSWORD`, `aws_secret_access_key`).
_STRONG_WORDS = (
    r"password|passwort|passwd|passcode|passphrase|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|private[_\-]?key|client[_\-]?secret|secret[_\-]?key|auth[_\-]?token|credentials?"
    r"|(?:mfa|totp|otp|2fa)[_\-]?seed|account[_\-]?key|shared[_\-]?access[_\-]?key"
)
# Short keywords that only count on their own or joined by _ . - (`SMTP_PASS`, `ADMIN_PIN`), so
# `bypass`, `compass` and `spin` are not labels.
# A PIN is a code (code_patterns.py checks its digits): "PIN = birthday" is not one.
_WEAK_WORDS = r"pass|pw|psw|psk|mdp"
_LABEL_WORDS = _STRONG_WORDS  # the high-entropy context words
# Settings about a credential, not the credential: PASSWORD_RESET_TIMEOUT=259200, secret_name: x.
_KNOB = (
    r"(?:timeout|ttl|length|len|min|max|expiry|expires|expiration|age|lifetime|attempts|retries|count|limit"
    r"|size|policy|name|file|path|dir|url|uri|endpoint|field|type|mode|enabled|required|rounds|algorithm"
    r"|algo|interval|days|hours|minutes|seconds|version|id|ref|arn|format|encoding|header|param|location"
    r"|hash|hashed|hasher|hashing|digest|scheme|encoder|salt_rounds|strength|complexity|rotation|store|manager"
    # Quantities of tokens (LLM budgets): token_budget = 200000, max_tokens, tokens_used.
    r"|budget|quota|usage|used|remaining|rate|cost|window|limit_per_day|per_day|per_minute)"
)
_LABEL = (
    rf"(?<![A-Za-z0-9])(?:[A-Za-z0-9_.\-]*?(?:{_STRONG_WORDS})"
    rf"|(?:[A-Za-z0-9]+[_.\-])*(?:{_WEAK_WORDS}))(?:[_.\-](?!{_KNOB}(?![A-Za-z0-9]))[A-Za-z0-9]+)*(?![A-Za-z0-9])"
)
_QUOTED_OR_BARE = r"(\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s,;]{1,400})"


# The value after `-p`, `-a`, `--password` on a command line that also logs in.
_CLI_LOGIN = (
    r"(?:\b(?:mysql|mysqldump|mariadb|psql|redis-cli|sshpass|docker|podman|az|oc|mongo|mongosh|sqlcmd"
    r"|smbclient|ftp|lftp|ldapsearch|ldapmodify|ldapadd|ldapwhoami)\b|\s-u\s)"
)

STRUCTURAL_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
            re.S,
        ),
    ),
    # PuTTY .ppk files: everything from the private lines to the MAC (or the end).
    SecretPattern(
        "private-key", re.compile(r"Private-Lines:\s*\d+\s*\n(?:.*?(?=\nPrivate-MAC:)|.*\Z)", re.S)
    ),
    # An AWS secret access key (40 base64 characters; people mistype) given right after its key id.
    SecretPattern(
        "aws-secret",
        re.compile(
            r"(?:AKIA|ASIA)[A-Z0-9]{16}[^\n]{0,60}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{30,44})(?![A-Za-z0-9/+])"
        ),
        group=1,
        check=high_entropy,
    ),
    SecretPattern(
        "bearer-token",
        re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._\-~+/]{16,}=*)"),
        group=1,
        check=plausible_value,
    ),
    # `Authorization: Basic dXNlcjpw…`, `Authorization: Token 9944…`, `Digest …`.
    SecretPattern(
        "auth-header",
        re.compile(
            r"(?i)\b(?:authorization\b[\"']?\s*[:=]\s*[\"']?|header value:\s*)"
            r"(?:basic|token|digest|apikey|sso-key)\s+([A-Za-z0-9._\-~+/:=]{8,})"
        ),
        group=1,
        check=plausible_value,
    ),
    # user:password@host inside a URL: only the password goes.
    SecretPattern(
        "url-password",
        re.compile(r"\b[a-z][a-z0-9+.\-]*://[^/\s:@]{0,100}:([^/\s@]{1,200})@"),
        group=1,
        check=url_secret,
    ),
    # A key alone as the URL's user (Sentry DSNs, token-as-username git remotes): long and random.
    SecretPattern(
        "url-token",
        re.compile(r"\b[a-z][a-z0-9+.\-]*://([A-Za-z0-9_\-]{20,200})@"),
        group=1,
        check=high_entropy,
    ),
    # Credentials in a query string: `?api_key=…`, `&token=…`, `X-Amz-Signature=…`, `?secret=` (TOTP).
    SecretPattern(
        "url-token",
        re.compile(
            r"(?i)[?&;](?:[a-z0-9_\-]*(?:token|secret|password|passwd|pwd|api[_\-]?key|apikey|signature|sig)"
            r"|key|auth|access_token|x-amz-credential|code_verifier|appid|app_?key|app_?secret|subscription-key)"
            r"=([^&\s#\"'<>]{8,})"
        ),
        group=1,
        check=url_secret,
    ),
    # An OAuth authorization code or magic-link token in a URL: long and random-looking only
    # (`?code=FR`, `?code=SAVE10` are country and promo codes).
    SecretPattern(
        "url-token",
        re.compile(r"(?i)[?&;](?:code|magic|login_token|ticket|otp|nonce)=([A-Za-z0-9_\-.~]{20,})"),
        group=1,
        check=high_entropy,
    ),
    # Client('AC…', 'auth-token'), login("user", "pw"): the second argument of a client or login call.
    SecretPattern(
        "password",
        re.compile(
            r"\b\w*(?:Client|Auth|auth|login|Login|connect|Connect|Credentials?|Session|session)\s*\(\s*"
            r"[\"'][^\"'\n]{2,80}[\"']\s*,\s*[\"']([^\"'\n]{6,200})[\"']"
        ),
        group=1,
        check=plausible_value,
    ),
    # Oracle's user/password@database: jdbc:oracle:thin:hr/pw@//host, sqlplus scott/tiger@orcl.
    SecretPattern(
        "connection-string",
        re.compile(
            r"(?i)(?:jdbc:oracle:(?:thin|oci8?):|\b(?:sqlplus|rman\s+target|expdp|impdp|exp|imp)\s+)"
            r"[\w.$#]{1,30}/([^\s@/]{3,100})@"
        ),
        group=1,
        check=plausible_value,
    ),
    # A credential-named key and its value as call arguments: define('DB_PASSWORD', 'x'),
    # config.set("api_token", "x"), os.environ.setdefault('SECRET_KEY', 'x').
    SecretPattern(
        "password",
        re.compile(
            rf"(?i)\(\s*[\"'][\w.\-]*(?:{_STRONG_WORDS}|pass)[\w.\-]*[\"']\s*,\s*[\"']([^\"'\n]{{3,200}})[\"']"
        ),
        group=1,
        check=plausible_value,
    ),
    # curl -u user:pass, --user user:pass, wget --password=…
    SecretPattern(
        "cli-password",
        re.compile(r"(?:\s|^)(?:-u|--user|--proxy-user)\s+[\"']?[^\s:\"'$]{1,64}:([^\s\"']{3,200})"),
        group=1,
        check=plausible_value,
    ),
    # mysql -pS3cret (glued), sshpass -p 'x', docker login -u me -p x, redis-cli -a x.
    SecretPattern(
        "cli-password",
        re.compile(
            rf"{_CLI_LOGIN}[^\n]*?\s(?:-p|-a|-w|--pass|--password)(?:\s+|=)?([\"'][^\"'\n]{{3,200}}[\"']|[^\s\"']{{3,200}})"
        ),
        group=1,
        check=credential_like,
    ),
    # Long options of any tool: --password x, --http-password=x, -storepass x (keytool), -passout pass:x.
    SecretPattern(
        "cli-password",
        re.compile(
            r"(?:\s|^)--?(?:[a-z]+-)?(?:password|passwd|pass|storepass|keypass|srcstorepass|deststorepass)"
            r"(?:\s+|=)(?:pass:)?([\"'][^\"'\n]{3,200}[\"']|[^\s\"'-][^\s\"']{2,200})"
        ),
        group=1,
        check=plausible_value,
    ),
    # zip/unzip -P pass, 7z -ppass (glued), rar -ppass, lftp -u user,pass.
    SecretPattern(
        "cli-password",
        re.compile(
            r"\b(?:(?:un)?zip\b[^\n|;&]*?\s-P\s*|(?:7za?|7zz|rar|unrar)\b[^\n|;&]*?\s-p"
            r"|lftp\b[^\n|;&]*?\s-u\s+[^\s,]{1,64},)([\"'][^\"'\n]{3,200}[\"']|[^\s\"'-][^\s\"']{2,200})"
        ),
        group=1,
        check=plausible_value,
    ),
    # `--vault-password-file <(echo X)`: what is echoed into a password option.
    SecretPattern(
        "cli-password",
        re.compile(
            r"(?i)pass[^\n]{0,80}?<\(\s*(?:echo|printf)\s+(?:-n\s+)?"
            r"([\"'][^\"'\n]{3,200}[\"']|[^\s\"')]{3,200})\s*\)"
        ),
        group=1,
        check=plausible_value,
    ),
    # smbclient -U user%pass, `net use … /user:DOMAIN\\me Passw0rd`, httpie --auth user:pass.
    SecretPattern(
        "cli-password", re.compile(r"\s-U\s+[^\s%]{1,64}%(\S{3,200})"), group=1, check=plausible_value
    ),
    SecretPattern(
        "cli-password", re.compile(r"(?i)/user:\S{1,100}\s+([^\s/]\S{2,200})"), group=1, check=credential_like
    ),
    SecretPattern(
        "cli-password",
        re.compile(r"(?:\s|^)(?:--auth|-a)\s+[\"']?[^\s:\"'$]{1,64}:([^\s\"']{3,200})"),
        group=1,
        check=credential_like,
    ),
    # requests.get(url, auth=('svc', 'pw')), HTTPBasicAuth('svc', 'pw').
    SecretPattern(
        "password",
        re.compile(
            r"(?:\bauth\s*=\s*\(|BasicAuth\()\s*[\"'][^\"'\n]{1,64}[\"']\s*,\s*[\"']([^\"'\n]{3,200})[\"']"
        ),
        group=1,
        check=plausible_value,
    ),
    # Session cookies: `Cookie: sessionid=…`, `Set-Cookie: JSESSIONID=…`.
    SecretPattern(
        "session-cookie",
        re.compile(
            r"(?i)\b(?:set-)?cookie:[^\n]*?\b(?:session(?:id)?|sid|auth|token|jwt|connect\.sid|phpsessid|jsessionid"
            r"|_session|remember_token)[\w.\-]*=([^;\s]{16,})"
        ),
        group=1,
        check=plausible_value,
    ),
    # Terraform: variable "db_password" { default = "…" }.
    SecretPattern(
        "password",
        re.compile(
            rf"(?i)variable\s+\"[^\"\n]*(?:{_STRONG_WORDS}|pass)[^\"\n]*\"\s*\{{[^}}]*?default\s*=\s*\"([^\"\n]+)\""
        ),
        group=1,
        check=plausible_value,
    ),
    # Server config files: `requirepass x` (redis), `masterauth x`, `auth_pass "x"` (keepalived).
    SecretPattern(
        "password",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])(?:requirepass|masterauth|[A-Za-z0-9]+_(?:pass|pwd|psk)"
            r"|[A-Za-z0-9_]*(?:password|passwd|secret))(?![A-Za-z0-9])[ \t]+"
            r"(\"[^\"\n]{3,200}\"|'[^'\n]{3,200}'|[^\s\"']\S{5,200})"
        ),
        group=1,
        check=direct_value,
    ),
    # MASTER_KEY: 'a1B2…', SIGNING_KEY=…: upper-case `*_KEY` names hold keys when the value looks made up
    # (SORT_KEY=created_at does not).
    SecretPattern(
        "password",
        re.compile(r"(?<![A-Za-z0-9])[A-Z0-9]+(?:_[A-Z0-9]+)*_KEY[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{6,200})"),
        group=1,
        check=direct_value,
    ),
    # <add key="ApiSecret" value="…" /> (.NET config), `"name": "DB_PASSWORD", "value": "…"` (k8s).
    SecretPattern(
        "password",
        re.compile(
            rf"(?i)(?:key|name)\s*[=:]\s*[\"'][^\"'\n]*?(?:{_STRONG_WORDS}|pass)[^\"'\n]*[\"']\s*,?\s*value\s*[=:]\s*[\"']([^\"'\n]{{3,200}})[\"']"
        ),
        group=1,
        check=plausible_value,
    ),
    # `password: x`, `DB_PASSWORD=x`, `"api_key": "x"`, `--set adminPassword=x`: keep the label.
    SecretPattern(
        "password",
        re.compile(rf"(?i){_LABEL}[\"']?\s*(?::=|[:=]|=>)\s*{_QUOTED_OR_BARE}"),
        group=1,
        check=plausible_value,
    ),
    # ADMIN_PIN=558214, "pin": "0429": a PIN-named setting holds a code (code_value), not a word.
    SecretPattern(
        "pin",
        re.compile(
            r"(?i)(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.\-])+pin(?:[_.\-]?code)?|[\"']pin(?:[_\-]?code)?[\"'])"
            r"\s*(?::=|[:=]|=>)\s*[\"']?"
            r"([*#]?\d{3,12}[#*]?|(?=[A-Za-z]*\d)[A-Za-z0-9]{4,10})(?![\w\-])"
        ),
        group=1,
        check=code_value,
    ),
    # A long random-looking string within a few words after a credential word.
    SecretPattern(
        "high-entropy",
        re.compile(
            rf"(?i)(?:{_LABEL_WORDS}|key|pat)(?:\W+\w+){{0,8}}?\W+([A-Za-z0-9+/_\-]{{20,}}={{0,2}}){_WORD_END}"
        ),
        group=1,
        check=high_entropy,
    ),
)

_CREDENTIAL_HINTS = (
    "pass",
    "pwd",
    "psw",
    "pw",
    "secret",
    "token",
    "key",
    "credential",
    "pin",
    "psk",
    "mdp",
    "seed",
)
STRUCTURAL_PATTERNS = with_hints(
    STRUCTURAL_PATTERNS,
    (
        ("-----begin",),
        ("private-lines",),
        ("akia", "asia"),
        ("bearer",),
        ("authorization", "header value"),
        ("://",),
        ("://",),
        ("=",),
        ("=",),
        ("client", "auth", "login", "connect", "credential", "session"),
        ("oracle", "sqlplus", "rman", "expdp", "impdp", "exp ", "imp "),
        ("(",),
        ("-u", "--user", "--proxy-user"),
        (
            "mysql",
            "mariadb",
            "psql",
            "redis",
            "sshpass",
            "docker",
            "podman",
            "az",
            "oc",
            "mongo",
            "sqlcmd",
            "smbclient",
            "ftp",
            "ldap",
            "-u",
        ),
        ("pass",),
        ("zip", "7z", "rar", "lftp"),
        ("echo", "printf"),
        ("%",),
        ("/user:",),
        ("--auth", "-a"),
        ("auth",),
        ("cookie",),
        ("variable",),
        ("pass", "pwd", "psk", "secret"),
        ("_key",),
        ("key", "name"),
        _CREDENTIAL_HINTS,
        ("pin",),
        (*_CREDENTIAL_HINTS, "pat"),
    ),
)
FORMAT_PATTERNS = VENDOR_PATTERNS + STRUCTURAL_PATTERNS
