"""Calls run aside (cogmem.aside): their result or error reaches the caller, and a forked child
runs its own (a pool's threads do not survive a fork)."""

from __future__ import annotations

import multiprocessing
import sys
import threading

import pytest

from cogmem.aside import run_aside


def test_the_result_and_the_error_reach_the_caller_from_another_thread() -> None:
    names = run_aside(lambda: threading.current_thread().name)()
    assert names.startswith("cogmem-aside") and names != threading.current_thread().name

    def fails() -> None:
        raise ValueError("no such collection")

    with pytest.raises(ValueError, match="no such collection"):
        run_aside(fails)()


def _in_child() -> None:
    sys.exit(0 if run_aside(lambda: 6 * 7)() == 42 else 1)


@pytest.mark.skipif(sys.platform == "win32", reason="fork is a POSIX call")
def test_a_forked_child_runs_calls_aside_on_threads_of_its_own() -> None:
    assert run_aside(lambda: 1)() == 1  # the parent's threads are running
    child = multiprocessing.get_context("fork").Process(target=_in_child)
    child.start()
    child.join(timeout=30)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0
