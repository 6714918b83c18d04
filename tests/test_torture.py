"""The fault-injection suite, bounded (about two minutes): ``benchmarks/torture.py`` with a few
trials of each fault. Every derived file damaged in each way, writers killed at random moments
(with a journal copy damaged after), writers on a disk that fills up: nothing acknowledged is
lost, nothing wrong is returned or written to Chroma, every error is named, every store opens
again once the fault is over. The long run (hundreds of trials) is the benchmark itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import torture


def _assert_clean(tally: torture.Tally) -> None:
    summary = tally.as_dict()
    assert tally.trials > 0, summary
    assert (tally.lost, tally.wrong, tally.unnamed, tally.failed_for_good) == (0, 0, 0, 0), summary


def test_every_derived_file_damaged_every_way(tmp_path: Path) -> None:
    tally = torture.corrupt_trials(tmp_path, trials=len(torture.DAMAGES), seed=11)
    _assert_clean(tally)
    expected = {f"{kind}/{how}" for kind in torture.FILE_KINDS for how in torture.DAMAGES}
    assert set(tally.faults) == expected  # each file damaged each way


def test_writers_killed_at_random_moments(tmp_path: Path) -> None:
    tally = torture.kill_trials(tmp_path, trials=4, seed=12)
    _assert_clean(tally)
    assert any(fault.startswith("kill+") for fault in tally.faults)


def test_writers_on_a_disk_that_fills_up(tmp_path: Path) -> None:
    tally = torture.disk_full_trials(tmp_path, trials=2, seed=13)
    if tally.skipped:
        pytest.skip("mounting a tmpfs needs root (a real full disk is needed here)")
    _assert_clean(tally)
    assert tally.named["DiskFullError"] > 0  # the disk did fill up, and was refused by name


def test_reused_ids_failing_chroma_closed_and_dropped_handles_and_both_journal_copies(
    tmp_path: Path,
) -> None:
    """The third round's faults, a trial or two of each (``benchmarks/torture_faults.py``);
    a loss no copy of a journal can make good is reported, by count."""
    from benchmarks import torture_faults

    tally = torture.Tally()
    for name in torture.ROUND_THREE:
        trials = len(torture_faults.BOTH) if name == "journal" else 2
        (tmp_path / name).mkdir()
        tally.merge(getattr(torture_faults, f"{name}_trials")(tmp_path / name, trials, seed=14))
    _assert_clean(tally)
    assert {f"both copies/{how}" for how in torture_faults.BOTH} <= set(tally.faults)
    assert tally.reported_lost > 0  # both copies cut or deleted: said, not silent
    assert tally.named["StoreDamagedError"] == 2  # chroma.sqlite3 gone: refused by name
