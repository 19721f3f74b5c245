"""The forked child of a render (rendering.isolated): its result is used without waiting for
its exit, it is reaped afterwards, and a child past a limit is still waited for and
reported as before."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator

import psutil
import pytest

from rendering import isolated
from rendering.errors import LimitExceeded
from rendering.isolated import exiting_count, reap_exited, run_isolated
from rendering.limits import Limits


def _until(what: str, done: Callable[[], bool], seconds: float = 10) -> None:
    ends = time.monotonic() + seconds
    while not done():
        if time.monotonic() > ends:
            raise AssertionError(f"not {what} after {seconds} s")
        time.sleep(0.01)


@pytest.fixture
def slow_exit(monkeypatch: pytest.MonkeyPatch, no_children_exiting: None) -> Iterator[None]:
    """The forked child sleeps in os._exit (it inherits the patch) before it exits: a
    child whose exit takes long, as a large worker's does."""
    real_exit = os._exit

    def sleeping_exit(code: int) -> None:
        time.sleep(60)
        real_exit(code)

    monkeypatch.setattr(os, "_exit", sleeping_exit)
    yield
    monkeypatch.undo()
    for pid in list(isolated._exiting):  # a failed test's children
        os.kill(pid, signal.SIGKILL)
    _until("reaped", lambda: (reap_exited(), exiting_count())[1] == 0)


def test_the_result_is_used_before_the_child_has_exited_and_it_is_reaped_later(slow_exit):
    started = time.monotonic()
    assert run_isolated(lambda: "filled", Limits()) == "filled"
    assert time.monotonic() - started < 30  # not the child's 60 s in os._exit
    (pid,) = isolated._exiting
    assert psutil.Process(pid).status() != psutil.STATUS_ZOMBIE  # still exiting
    reap_exited()  # not exited yet: kept
    assert exiting_count() == 1
    os.kill(pid, signal.SIGKILL)  # the exit ends
    _until("reaped", lambda: (reap_exited(), exiting_count())[1] == 0)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left


def test_the_next_render_reaps_the_children_that_exited_since(slow_exit):
    run_isolated(lambda: 1, Limits())
    (pid,) = isolated._exiting
    os.kill(pid, signal.SIGKILL)
    _until("a zombie", lambda: psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    assert run_isolated(lambda: 2, Limits()) == 2
    assert pid not in isolated._exiting  # reaped; the new child is kept in its place
    assert exiting_count() == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_a_child_past_the_time_limit_is_killed_and_reaped_before_the_error(
    monkeypatch: pytest.MonkeyPatch, no_children_exiting: None
):
    # The child this render forks, by its pid: any other child of this process (an earlier
    # render's, still exiting, or another test's) may exit meanwhile and be a zombie for a
    # while, which says nothing about this one.
    forked: list[int] = []
    real_fork = os.fork

    def recorded_fork() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded_fork)

    def forever() -> None:
        while True:
            pass

    with pytest.raises(LimitExceeded, match="longer than 200 ms"):
        run_isolated(forever, Limits(template_timeout_ms=200))
    (pid,) = forked
    assert pid not in isolated._exiting  # waited for, not left to exit
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped before the error: no zombie left
    monkeypatch.undo()
    assert run_isolated(lambda: "next", Limits()) == "next"  # the next render works


def test_a_child_reaped_by_someone_else_still_gives_its_result(monkeypatch):
    real_waitpid = os.waitpid

    def reaped_elsewhere(pid: int, options: int) -> tuple[int, int]:
        if options == os.WNOHANG:  # a SIGCHLD handler of the process reaped it first
            real_waitpid(pid, 0)
            raise ChildProcessError(pid)
        return real_waitpid(pid, options)

    monkeypatch.setattr(os, "waitpid", reaped_elsewhere)
    assert run_isolated(lambda: "filled", Limits()) == "filled"
    assert exiting_count() == 0


def _wake_when_stopped(after: float) -> threading.Thread:
    """SIGCONT for this process's child once it has stopped itself and `after` seconds have
    passed: a child kept off the CPU, as on a host where renders wait for a core."""

    def wake() -> None:
        ends = time.monotonic() + 30
        while time.monotonic() < ends:
            for child in psutil.Process().children():
                if child.status() == psutil.STATUS_STOPPED:
                    time.sleep(after)
                    child.send_signal(signal.SIGCONT)
                    return
            time.sleep(0.01)

    thread = threading.Thread(target=wake)
    thread.start()
    return thread


def test_a_child_kept_off_the_cpu_past_its_budget_still_finishes():
    """The limit is the child's CPU time: a render that waited for a core longer than its
    budget, and then needed little CPU, is not failed for the machine's load."""

    def waits_then_renders() -> str:
        os.kill(os.getpid(), signal.SIGSTOP)
        return "rendered"

    waker = _wake_when_stopped(after=0.8)  # four times the budget
    started = time.monotonic()
    assert run_isolated(waits_then_renders, Limits(template_timeout_ms=200)) == "rendered"
    waker.join()
    assert time.monotonic() - started > 0.8  # past the budget in wall time


def test_a_child_that_spends_no_cpu_is_still_killed_at_ten_times_its_budget():
    """A child that never runs again (one deadlocked on a lock held at the fork) spends no
    CPU: the wall-clock cap ends it."""

    def stuck() -> None:
        os.kill(os.getpid(), signal.SIGSTOP)

    exiting_before = set(isolated._exiting)  # earlier renders' children (other tests')
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="longer than 100 ms"):
        run_isolated(stuck, Limits(template_timeout_ms=100))
    took = time.monotonic() - started
    assert 1.0 <= took < 30  # the cap, 10 x 100 ms; not forever
    assert not set(isolated._exiting) - exiting_before
