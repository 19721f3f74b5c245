"""The memory ceiling of a sandboxed render, one rule for both sandboxes: what the process
uses when the render starts plus the render's budget, never above the hard limit already
set. rendering.isolated caps RLIMIT_AS in a forked child; rendering/engines/v8_child.py
caps RLIMIT_DATA around each V8 render.

Standard library only: v8_child.py runs as `python -I` apart from the project and loads
this file by its path.
"""

from __future__ import annotations

import resource


def rlimit_cap(kind: int, *, used: int, budget: int) -> tuple[int, int]:
    """Lower the soft limit `kind` (a resource.RLIMIT_*) to `used + budget` bytes, capped
    by its hard limit; the (soft, hard) limits it had before, for the caller to restore."""
    soft, hard = resource.getrlimit(kind)
    ceiling = used + budget
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    resource.setrlimit(kind, (ceiling, hard))
    return soft, hard
