"""A job's frames in a data-stack chunk of their own: a recursion that goes up and down across
the end of CPython's 16 KiB chunks maps and unmaps one at every crossing (a page fault each);
under on_a_chunk_of_its_own it stays within one chunk wherever the caller's frames end."""

from __future__ import annotations

import resource
import sys
from collections.abc import Callable

import pytest

from rendering.data_stack import on_a_chunk_of_its_own

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="CPython 3.11's data-stack chunks"
)

UPS_AND_DOWNS = 300


def _down(depth: int) -> int:
    return 0 if depth == 0 else _down(depth - 1) + 1


def _up_and_down() -> int:
    for _ in range(UPS_AND_DOWNS):
        _down(12)  # as a layout's recursion: the same depths again and again
    return 0


def _at_depth(extra: int, work: Callable[[], int]) -> int:
    return work() if extra == 0 else _at_depth(extra - 1, work) + 0


def _most_faults(work: Callable[[], int]) -> int:
    """The most minor page faults `work` made, started under 0 to 200 frames of ours: one of
    those depths puts a chunk's end inside its recursion."""
    most = 0
    for extra in range(200):
        before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
        _at_depth(extra, work)
        most = max(most, resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
    return most


def test_a_recursion_across_a_chunks_end_faults_at_every_crossing_but_not_on_its_own_chunk():
    assert _most_faults(_up_and_down) >= UPS_AND_DOWNS  # what a pool child's render met
    # The chunk mapped once a call, and the wide frame's ~7 pages written: not per crossing.
    assert _most_faults(lambda: on_a_chunk_of_its_own(_up_and_down)) <= 30


def test_the_work_s_answer_and_errors_come_through():
    assert on_a_chunk_of_its_own(lambda: 42) == 42
    with pytest.raises(ZeroDivisionError):
        on_a_chunk_of_its_own(lambda: 1 // 0)
