"""The CPU budget the schema check and the render child share: wall time alone does not
spend it, CPU time does, and the wall-clock cap does."""

from __future__ import annotations

import time

import pytest

from rendering.cpu_budget import CpuBudget


def test_wall_time_alone_does_not_spend_it_and_cpu_time_does():
    cpu = [0.0]
    budget = CpuBudget(0.05, lambda: cpu[0])
    time.sleep(0.1)  # past the budget in wall time, no CPU spent
    assert budget.left() > 0  # the wall deadline moves on by the CPU left: 0.05 s
    cpu[0] = 0.04
    time.sleep(0.06)
    assert budget.left() == pytest.approx(0.01, abs=1e-4)  # the CPU left, as wall to wait
    cpu[0] = 0.05
    time.sleep(0.02)
    assert budget.left() == 0.0


def test_the_wall_cap_spends_it_whatever_the_cpu():
    budget = CpuBudget(0.02, lambda: 0.0, wall_cap=0.5)
    time.sleep(0.05)
    assert budget.left() == pytest.approx(0.02, abs=1e-4)  # no CPU spent: all of it left
    time.sleep(0.5)
    assert budget.left() == 0.0  # past the cap


def test_the_clock_counts_from_the_start():
    budget = CpuBudget(0.01, lambda: 100.0)  # a clock that was far along already
    time.sleep(0.02)
    assert budget.left() > 0
