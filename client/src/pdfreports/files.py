"""A download written to `<name>.part` and renamed once complete, so a broken transfer
never leaves a file that looks whole: shared by job and run downloads, sync and async."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

OnBytes = Callable[[int, int | None], None]


class PartFile:
    """`with PartFile(target) as out: out.write(chunk)`; `on_bytes(received, total)` after
    each chunk. Renamed to `target` only when the block ends without an error."""

    def __init__(
        self, target: Path, *, total: int | None = None, on_bytes: OnBytes | None = None
    ) -> None:
        self.target = target
        self._partial = target.with_name(target.name + ".part")
        self._total = total
        self._on_bytes = on_bytes
        self._received = 0

    def __enter__(self) -> PartFile:
        self._out = self._partial.open("wb")
        return self

    def write(self, chunk: bytes) -> None:
        self._out.write(chunk)
        self._received += len(chunk)
        if self._on_bytes:
            self._on_bytes(self._received, self._total)

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        self._out.close()
        if exc_type is None:
            os.replace(self._partial, self.target)
