"""Vendor token formats, one regex per documented prefix (as gitleaks lists them), with hint words."""

from __future__ import annotations

import re

from app.core.privacy.pattern import SecretPattern
from app.core.privacy.values import not_placeholder_run

# A lower-case piece of each vendor's prefix: the regex runs only when the text holds it.
_VENDOR_HINTS: dict[str, tuple[str, ...]] = {
    "aws-key": ("akia", "asia", "abia", "acca", "a3t"),
    "github-token": ("gh", "github_pat"),
    "slack-token": ("xox", "xapp"),
    "slack-webhook": ("hooks.slack",),
    "stripe-key": ("_live_", "_test_", "whsec_"),
    "openai-key": ("sk-",),
    "google-key": ("aiza",),
    "telegram-bot-token": (":aa",),
    "discord-token": (".",),
    "jwt": ("eyj",),
    "gitlab-token": ("gl",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-",),
    "huggingface-token": ("hf_",),
    "docker-token": ("dckr_",),
    "sendgrid-key": ("sg.",),
    "digitalocean-token": ("_v1_",),
    "shopify-token": ("shp",),
    "vault-token": ("hvs.", "hvb.", "hvr."),
    "mailgun-key": ("key-",),
    "mapbox-token": (".eyj",),
    "linear-key": ("lin_",),
    "notion-token": ("secret_", "ntn_"),
    "atlassian-token": ("atatt3",),
    "square-token": ("sq0", "eaaa"),
    "databricks-token": ("dapi",),
    "grafana-token": ("glc_", "glsa_"),
    "sentry-token": ("sntr",),
    "planetscale-token": ("pscale_",),
    "doppler-token": ("dp.",),
    "twilio-key": ("sk",),
    "age-key": ("age-secret-key",),
    "asana-token": ("/",),
    "brevo-key": ("xkeysib-",),
    "figma-token": ("figd_",),
    "replicate-token": ("r8_",),
    "discord-webhook": ("discord",),
    "postman-key": ("pmak-",),
}


def _vendor(kind: str, pattern: str) -> SecretPattern:
    return SecretPattern(kind, re.compile(pattern), check=not_placeholder_run, hints=_VENDOR_HINTS[kind])


VENDOR_PATTERNS: tuple[SecretPattern, ...] = (
    # AWS access key ids: AKIA (long-term), ASIA (STS), then 16 upper-case letters and digits.
    _vendor("aws-key", r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])"),
    _vendor("github-token", r"\bgh[pousr]_[A-Za-z0-9]{20,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    # xoxb/xoxp/xoxa/… tokens and app-level tokens (xapp-1-…).
    _vendor(
        "slack-token",
        r"\bxox[abposre]-(?:[A-Za-z0-9]+-?){2,}[A-Za-z0-9]+|\bxapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]{16,}",
    ),
    _vendor("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,}"),
    _vendor(
        "stripe-key", r"\b(?:sk|rk|pk|whsec)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9+/]{24,}"
    ),
    _vendor("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_\-]{20,}"),
    _vendor("google-key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
    # No \b before the digits: the token sits glued to "bot" in API URLs (…/bot123:AA…/sendMessage).
    _vendor("telegram-bot-token", r"(?<!\d)\d{8,10}:AA[A-Za-z0-9_\-]{33}\b"),
    _vendor("discord-token", r"\b[MNO][A-Za-z\d]{23,25}\.[\w\-]{6}\.[\w\-]{27,38}\b"),
    _vendor("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    # Prefixed tokens (as gitleaks lists them): GitLab, npm, PyPI, Hugging Face, Docker Hub,
    # SendGrid, DigitalOcean, Shopify, Vault, Mailgun, Mapbox secret/public, Linear, Notion,
    # Atlassian, Square, Databricks, Grafana, Sentry, PlanetScale, Doppler, Twilio API keys, age.
    _vendor("gitlab-token", r"\bgl(?:pat|ptt|dt|rt|cbt|oas|ft|imt)-[A-Za-z0-9_\-]{20,}"),
    _vendor("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _vendor("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{40,}"),
    _vendor("huggingface-token", r"\bhf_[A-Za-z0-9]{30,40}\b"),
    _vendor("docker-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}"),
    _vendor("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}"),
    _vendor("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    _vendor("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    _vendor("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}"),
    _vendor("mailgun-key", r"\bkey-[0-9a-z]{32}\b"),
    _vendor("mapbox-token", r"\b[ps]k\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{16,}"),
    _vendor("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}\b"),
    _vendor("notion-token", r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b"),
    _vendor("atlassian-token", r"\bATATT3[A-Za-z0-9_\-=]{40,}"),
    _vendor("square-token", r"\b(?:sq0atp|sq0csp|EAAA)[A-Za-z0-9_\-]{22,}"),
    _vendor("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    _vendor("grafana-token", r"\b(?:glc_|glsa_)[A-Za-z0-9_+/=]{32,}"),
    _vendor("sentry-token", r"\bsntr[ysu]_[A-Za-z0-9_+/=]{40,}"),
    _vendor("planetscale-token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}"),
    _vendor("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim)\.[A-Za-z0-9]{40,}"),
    _vendor("twilio-key", r"\bSK[0-9a-f]{32}\b"),
    _vendor("age-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    _vendor("asana-token", r"\b\d/\d{13,16}:[a-f0-9]{32}\b"),
    _vendor("brevo-key", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b"),
    _vendor("figma-token", r"\bfigd_[A-Za-z0-9_\-]{40,}"),
    _vendor("replicate-token", r"\br8_[A-Za-z0-9]{30,}\b"),
    _vendor("discord-webhook", r"discord(?:app)?\.com/api/webhooks/\d+/[\w\-]{60,}"),
    _vendor("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
)
