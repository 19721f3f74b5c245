"""The two kinds of foreign key the apps' models declare again and again, made in one place."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from django.db import models

if TYPE_CHECKING:
    from typing import TypeAlias

    _M = TypeVar("_M", bound=models.Model)
    # What a field made here reads as: the factories cannot name the model a string
    # refers to, so each field says it (`workspace: OptionalLink[Workspace] = ...`).
    OptionalLink: TypeAlias = models.ForeignKey[_M | None, _M | None]


def workspace_link(related_name: str) -> models.ForeignKey[Any, Any]:
    """The workspace a row belongs to, gone with it. Nullable: a built-in template has
    none, and older rows had none until the data migration that filled them."""
    return models.ForeignKey(
        "workspaces.Workspace",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name=related_name,
    )


def kept_link(to: str | type[models.Model], related_name: str = "+") -> models.ForeignKey[Any, Any]:
    """A link that outlives what it points to: deleting the target leaves the row with the
    link cleared (who published or acted, which version is live), never deletes the row."""
    return models.ForeignKey(
        to, on_delete=models.SET_NULL, null=True, blank=True, related_name=related_name
    )
