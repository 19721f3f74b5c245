"""What a costly, pure check or parse gave for an input, kept by the input's SHA-256.

Integrators send the same template source again and again (inline submits, a studio save
of an unchanged source, the samples synced at every start), and its check or parse can cost
tens of milliseconds on a request path. The callers keep only what may be kept: a parse's
result, or a check's pass (a failing input is checked, and refused, each time). The oldest
entries go past `size`. Request threads share a memo, under its lock."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")


def digest_of(*parts: str | bytes) -> bytes:
    """One SHA-256 over the parts, each prefixed by its length, so that no two different
    lists of parts share a digest by where one ends and the next begins."""
    hashed = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hashed.update(len(data).to_bytes(8, "big"))
        hashed.update(data)
    return hashed.digest()


class DigestMemo(Generic[V]):
    """A bounded map from an input's digest to what was found for it, least recently used
    first out."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[bytes, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, digest: bytes) -> V | None:
        with self._lock:
            if digest not in self._kept:
                return None
            self._kept.move_to_end(digest)
            return self._kept[digest]

    def __contains__(self, digest: bytes) -> bool:
        return self.get(digest) is not None

    def put(self, digest: bytes, value: V) -> None:
        with self._lock:
            self._kept[digest] = value
            self._kept.move_to_end(digest)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
