"""A job's Python frames in a data-stack chunk of their own, large enough for the whole render.

CPython 3.11 keeps a thread's frames in chunks of 16 KiB (`_PyThreadState_PushFrame`): a
call that does not fit in the current chunk gets a new one from `mmap`, and returning from
the first frame of a chunk gives it back with `munmap`. A layout recurses up and down
through the same depths thousands of times a page; where that depth crosses a chunk's end,
each crossing is an `mmap`, a page fault on the new chunk and a `munmap`. In a Celery pool
child the render starts deep in Celery's own frames and the invoice's layout crossed one
~880 times a render: ~890 page faults, 6.7-8.5 ms of system CPU, and the render's CPU 61-65
ms against 49-50 ms with this (tests/bench/child_faults.py, 2026-12-07; `report_render`
alone, called from a shallower frame, made 5-9 faults). `on_a_chunk_of_its_own(work)` calls
`work` from a frame too wide for the current chunk, so CPython gives it a new chunk sized for
it (sizes double from 16 KiB) with room left for every frame `work` calls: they never reach
the chunk's end, so the render allocates no chunk and the job pays one `mmap` and `munmap`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")

# Local variables of the wide frame (8 bytes each): a frame of ~25 KB makes CPython allocate
# a 64 KiB chunk (it doubles 16 KiB while the chunk is under 8 bytes x (slots + 1,000)),
# leaving ~38 KB for the frames under it, about 1,000 of them.
WIDE_FRAME_SLOTS = 3_200


def _wide_caller() -> Callable[[Callable[[], object]], object]:
    # The assignments never run (work is never None); they make the names locals, which
    # is what sizes the frame. Unlike a stack-deep expression, locals are sized exactly.
    names = " = ".join(f"_{i}" for i in range(WIDE_FRAME_SLOTS))
    source = f"def call(work):\n    if work is None:\n        {names} = None\n    return work()\n"
    namespace: dict[str, Callable[[Callable[[], object]], object]] = {}
    # Named apart from this file, so a traceback through it shows no line of this one.
    exec(compile(source, "<data_stack wide frame>", "exec"), namespace)  # noqa: S102 - fixed text
    return namespace["call"]


_call = _wide_caller()


def on_a_chunk_of_its_own(work: Callable[[], _T]) -> _T:
    """`work()`, its frames in a data-stack chunk that none of them outgrows."""
    return _call(work)  # type: ignore[return-value]
