"""The accounts app's error codes (API keys), declared as rendering.error_codes says."""

from __future__ import annotations

from rendering.error_codes import CodeEnum


class AccountErrorCode(CodeEnum):
    API_KEYS_MAX = (
        "api_keys_max",
        409,
        False,
        "Revoke an API key you no longer use, then create the new one.",
    )
