"""Public mail domains: anyone may have an address there, so none proves an organisation."""

from __future__ import annotations

import re

from django.conf import settings

# `name.*` stands for that name under any top-level domain (gmx.de, gmx.net, gmx.co.uk).
PUBLIC_MAIL_DOMAINS = (
    "gmail.com",
    "googlemail.com",
    "outlook.*",
    "hotmail.*",
    "live.*",
    "msn.com",
    "yahoo.*",
    "ymail.com",
    "aol.*",
    "icloud.com",
    "me.com",
    "mac.com",
    "proton.me",
    "protonmail.*",
    "pm.me",
    "gmx.*",
    "web.de",
    "mail.com",
    "zoho.com",
    "yandex.*",
    "mail.ru",
    "qq.com",
    "163.com",
    "tutanota.*",
    "tuta.io",
    "fastmail.*",
    "hey.com",
)


def public_mail_domain(domain: str) -> bool:
    """Whether `domain` (bare, lower-cased) is, or is under, a public mail domain: the
    built-in list and the operator's SSO_PUBLIC_MAIL_DOMAINS."""
    for entry in (*PUBLIC_MAIL_DOMAINS, *settings.SSO_PUBLIC_MAIL_DOMAINS):
        entry = entry.strip().lower().removeprefix("@")
        if entry.endswith(".*"):
            stem = re.escape(entry[:-2])
            if re.fullmatch(rf"(?:.+\.)?{stem}(?:\.[a-z0-9-]+){{1,2}}", domain):
                return True
        elif entry and (domain == entry or domain.endswith(f".{entry}")):
            return True
    return False
