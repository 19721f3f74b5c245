"""The check every nested options object gets first: a JSON object of known keys only."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from rendering.errors import InvalidInput


def option_object_check(raw: Any, *, path: str, known: Collection[str], what: str) -> None:
    """InvalidInput unless `raw` is a JSON object whose keys are all `known`: naming `path`,
    or the unknown keys (as `what`, e.g. "option(s)") and the known ones."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"{path} must be a JSON object.")
    if unknown := sorted(set(raw) - set(known)):
        raise InvalidInput(
            f"Unknown {what}: {', '.join(unknown)}; known: {', '.join(sorted(known))}."
        )
