"""Post-render steps as stored on a job or template row: the secrets in them sealed with
the signing certificates' key (accounts.signing_certificates), never held plain."""

from __future__ import annotations

import json
from typing import Any

from accounts.signing_certificates import secret_seal, secret_unseal
from rendering.postprocess.steps import SEALED_PLACEHOLDER

_PASSWORDS = ("user_password", "owner_password")


def steps_seal(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps as stored on a job or template row: an encrypt step's passwords sealed
    (`sealed_passwords`), so no row, status JSON, admin page or dump holds them plain."""
    sealed = []
    for step in steps:
        if step["type"] == "encrypt" and "sealed_passwords" not in step:
            secret = json.dumps({k: step[k] for k in _PASSWORDS})
            rest = {k: v for k, v in step.items() if k not in _PASSWORDS}
            step = rest | {"sealed_passwords": secret_seal(secret)}
        sealed.append(step)
    return sealed


def steps_unseal(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The normalised steps again (parse_steps' shape), for the worker and a re-check."""
    plain = []
    for step in steps:
        if step["type"] == "encrypt" and "sealed_passwords" in step:
            secret = json.loads(secret_unseal(step["sealed_passwords"]))
            step = {k: v for k, v in step.items() if k != "sealed_passwords"} | secret
        plain.append(step)
    return plain


def steps_redacted(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stored steps as an API or the admin shows them: what they do, an encrypt
    step's passwords as a placeholder (which a save sends back to keep them)."""
    shown = []
    for step in steps:
        step = {k: v for k, v in step.items() if k != "sealed_passwords"}
        if step["type"] == "encrypt":
            step = {"type": "encrypt"} | dict.fromkeys(_PASSWORDS, SEALED_PLACEHOLDER) | step
        shown.append(step)
    return shown


def steps_restored(raw: Any, stored: list[dict[str, Any]] | None) -> Any:
    """The steps a save sent, each password that is the placeholder replaced by the one
    `stored` (the row's sealed steps) holds, so a read-then-save round trip loses
    nothing. Without a stored encrypt step the placeholder stays, and parse_steps
    refuses it (400) rather than encrypt with it."""
    if not isinstance(raw, list) or not any(_has_placeholder(step) for step in raw):
        return raw
    kept = next((s for s in steps_unseal(stored or []) if s["type"] == "encrypt"), None)
    if kept is None:
        return raw
    restored = []
    for step in raw:
        if _has_placeholder(step):  # at most one encrypt step: the last (parse_steps)
            step = step | {k: kept[k] for k in _PASSWORDS if step.get(k) == SEALED_PLACEHOLDER}
        restored.append(step)
    return restored


def _has_placeholder(step: Any) -> bool:
    return (
        isinstance(step, dict)
        and step.get("type") == "encrypt"
        and any(step.get(k) == SEALED_PLACEHOLDER for k in _PASSWORDS)
    )
