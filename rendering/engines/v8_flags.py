"""V8's flags, set once per process before its first isolate (handlebars.py's parser
threads; v8_child.py makes its isolates on its one thread, where the defaults are safe)."""

from __future__ import annotations

from py_mini_racer import DEFAULT_V8_FLAGS, init_mini_racer

# Memory protection keys (PKU, on recent Intel Xeons) are per thread: V8 sets them on the
# thread that starts it, and an isolate made afterwards on a thread created before then
# crashes the process (SIGSEGV in mini-racer's context set-up). The parser threads of a
# web process are made before V8 starts, so every machine with PKU crashed on its second
# parser thread (found on 2026-12-06). Without them V8 write-protects its code as on
# machines without PKU.
V8_FLAGS = (*DEFAULT_V8_FLAGS, "--no-memory-protection-keys")


def v8_start() -> None:
    """V8 started with V8_FLAGS; a no-op once it runs."""
    init_mini_racer(flags=V8_FLAGS, ignore_duplicate_init=True)
