"""Post-render steps as stored on a job or template row: the secrets in them sealed with
the signing certificates' key (accounts.signing_certificates), never held plain."""

from __future__ import annotations

import json
from typing import Any

from accounts.signing_certificates import secret_seal, secret_unseal

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
    """The stored steps as an API shows them: what they do, never a sealed secret."""
    return [{k: v for k, v in step.items() if k != "sealed_passwords"} for step in steps]
