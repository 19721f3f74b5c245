"""A report storage that fails its first CHAOS_STORAGE_FAILURES saves of each file, for the
chaos test of a storage outage that recovers. Counts live on disk, so every worker child
shares them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.files.storage import FileSystemStorage


class FlakyStorage(FileSystemStorage):
    def _save(self, name: str, content: Any) -> str:
        failures = int(os.environ.get("CHAOS_STORAGE_FAILURES", "2"))
        counter = Path(self.location) / f".failures-{name}"
        counter.parent.mkdir(parents=True, exist_ok=True)
        seen = int(counter.read_text()) if counter.exists() else 0
        if seen < failures:
            counter.write_text(str(seen + 1))
            raise OSError(f"injected storage outage ({seen + 1} of {failures})")
        return super()._save(name, content)
