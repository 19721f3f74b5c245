"""The development mail backend: each mail saved to a file under EMAIL_FILE_PATH, and one
log line saying who it is for and where it is, instead of the whole mail on the console."""

from __future__ import annotations

import logging
from pathlib import Path

from django.core.mail import EmailMessage
from django.core.mail.backends.filebased import EmailBackend

logger = logging.getLogger(__name__)


class SavedMailBackend(EmailBackend):
    def write_message(self, message: EmailMessage) -> None:
        super().write_message(message)
        # The stubs do not know the file the base class opened for this connection.
        saved = Path(getattr(self, "_fname", None) or self.file_path)
        shown = saved.relative_to(Path.cwd()) if saved.is_relative_to(Path.cwd()) else saved
        logger.info(
            "mail to %s: %r saved in %s", ", ".join(message.to), str(message.subject), shown
        )
