"""The CPU account of tests/bench/chromium_cpu.py: a renderer that exits between two
snapshots is counted once, whether it was seen alive, as a zombie or not at all."""

from __future__ import annotations

import pytest

from tests.bench.chromium_cpu import delta


def test_an_exited_renderers_cpu_moves_to_its_parent_and_is_counted_once():
    before = {
        (10, "zygote"): 1.0,
        (10, "reaped under zygote"): 5.0,
        (11, "gone"): 0.3,  # a zombie: its CPU is still its own
    }
    after = {
        (10, "zygote"): 1.1,
        (10, "reaped under zygote"): 5.5,  # the zombie's 0.3 and a short-lived one's 0.2
    }
    got = delta(before, after)
    assert sum(got.values()) == pytest.approx(0.1 + 0.2)
    assert got["gone"] == pytest.approx(-0.3)


def test_a_new_process_counts_all_it_used():
    got = delta({(1, "python"): 2.0}, {(1, "python"): 2.5, (12, "renderer"): 0.4})
    assert got == {"python": pytest.approx(0.5), "renderer": pytest.approx(0.4)}
