"""Rows written once and never changed: the rule enforced in `save`, where every writer passes."""

from __future__ import annotations

from typing import Any, ClassVar

from django.db import models


class WriteOnceModel(models.Model):
    """Saving a row that is already stored raises `rewrite_error(rewrite_message)`: a new
    row is the only way to record a change (a template's next version, a new audit entry)."""

    rewrite_error: ClassVar[type[Exception]] = ValueError
    rewrite_message: ClassVar[str]

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise self.rewrite_error(self.rewrite_message)
        super().save(*args, **kwargs)
