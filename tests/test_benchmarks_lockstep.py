"""The speed benchmark's lockstep: worker processes take turns, one step each."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import speed

ROOT = Path(__file__).resolve().parents[1]

# A worker: `steps` turns, each appending "<name> start" and "<name> end" to a shared log,
# then its result (its name) as the last stdout line, as the build workers print theirs.
WORKER = """
import json, sys
sys.path.insert(0, {root!r})
from benchmarks.speed import Gate
name, steps, log, gate = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[5]
g = Gate(gate)
for _ in range(steps):
    with g.step():
        with open(log, "a") as fh:
            fh.write(name + " start\\n")
        with open(log, "a") as fh:
            fh.write(name + " end\\n")
print(json.dumps({{"name": name}}))
"""


def test_workers_take_turns_one_step_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(root=str(ROOT)))
    log = tmp_path / "steps.log"

    def command(argv: list[str]) -> tuple[list[str], dict[str, str]]:
        return [sys.executable, str(script), *argv], dict(os.environ)

    monkeypatch.setattr(speed, "_worker_command", command)
    results = speed._run_lockstep(
        {"a": ["a", "3", str(log)], "b": ["b", "1", str(log)], "c": ["c", "2", str(log)]}
    )
    assert results == {"a": {"name": "a"}, "b": {"name": "b"}, "c": {"name": "c"}}
    lines = log.read_text().split("\n")[:-1]
    # Never two steps at once, and round-robin until each has no steps left.
    steps = [lines[i].split()[0] for i in range(0, len(lines), 2)]
    assert all(lines[i] == f"{steps[i // 2]} start" for i in range(0, len(lines), 2))
    assert all(lines[i] == f"{steps[i // 2]} end" for i in range(1, len(lines), 2))
    assert steps == ["a", "b", "c", "a", "c", "a"]


def test_a_worker_that_dies_leaves_the_rotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(root=str(ROOT)))
    log = tmp_path / "steps.log"

    def command(argv: list[str]) -> tuple[list[str], dict[str, str]]:
        if argv[0] == "dead":
            return [sys.executable, "-c", "import sys; sys.exit(3)"], dict(os.environ)
        return [sys.executable, str(script), *argv], dict(os.environ)

    monkeypatch.setattr(speed, "_worker_command", command)
    results = speed._run_lockstep({"dead": ["dead"], "a": ["a", "2", str(log)]})
    assert results == {"dead": {"error": "exit code 3"}, "a": {"name": "a"}}
    assert log.read_text().split() == ["a", "start", "a", "end"] * 2


def test_the_snapshot_runs_on_its_own(tmp_path: Path) -> None:
    """Workers run the snapshot, not this checkout: it must hold every module they import."""
    snap = speed.snapshot(tmp_path)
    env = dict(os.environ, COGMEM_CORE=str(snap / "core"), PYTHONPATH="")
    code = (
        "import sys; sys.argv[1:] = ['--help']; import runpy; "
        f"runpy.run_path({str(snap / 'benchmarks' / 'speed.py')!r}, run_name='__main__')"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "cogmem vs LangChain" in proc.stdout
