"""Reading what Django's file-based mail backend wrote (EMAIL_FILE_PATH): one file per
connection, each message followed by a line of 79 dashes."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path

_SEPARATOR = b"\n" + b"-" * 79 + b"\n"


def mails_in(folder: Path, *, to: str | None = None) -> list[EmailMessage]:
    """Every message in the folder (oldest file first), or only those to `to`."""
    found: list[EmailMessage] = []
    if not folder.exists():
        return found
    for path in sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime):
        for chunk in path.read_bytes().split(_SEPARATOR):
            if chunk.strip():
                message = email.message_from_bytes(chunk, policy=email.policy.default)
                assert isinstance(message, EmailMessage)
                if to is None or message["To"] == to:
                    found.append(message)
    return found


def body_of(message: EmailMessage) -> str:
    return str(message.get_content())


def subject_of(message: EmailMessage) -> str:
    # A long encoded subject is folded onto the next line; unfolded, it keeps that space.
    return str(message["Subject"]).strip()
