"""The torture benchmark's trials of the third integrity round (``benchmarks/torture.py``):

* ``reuse``: ids deleted and added again with a new text (through the journal, and through
  Chroma at once, past a saved index), the writer killed at a random moment;
* ``chroma``: Chroma's collection fails about one write in six, before or after applying it;
  the writer closes or is killed;
* ``close``: threads add while the memory is closed under them;
* ``drop``: the memory is dropped without ``close()`` midway, the store reopened in the same
  process, the writer killed or closed;
* ``journals``: a killed writer's journal damaged in *both* copies: cut at the same place, cut
  at a frame boundary, deleted, or garbled in different places (a loss no copy can make good
  must be reported, by count; damage in different places must cost nothing);
* ``chroma_file``: ``chroma.sqlite3`` emptied or deleted after a clean close: the open must be
  refused by name; with the file restored, nothing is lost;
* ``lock``: the files beside the lock garbled or deleted while a writer holds the store: a
  second process must be refused.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

from benchmarks.torture import ROOT, Tally, check, write
from benchmarks.torture_writer import DIM

__all__ = [
    "chroma_file_trials",
    "chroma_trials",
    "close_trials",
    "drop_trials",
    "journal_trials",
    "lock_trials",
    "reuse_trials",
    "second_writer",
    "tenants_trials",
]

#: How both journal copies are damaged.
BOTH = ("cut same", "cut frame", "delete", "garble apart")


def reuse_trials(work: Path, trials: int, seed: int) -> Tally:
    """Close once (the index saved), then reuse ids and be killed at a random moment."""
    tally = Tally()
    rng = random.Random(seed)
    for n in range(trials):
        folder = work / f"reuse-{n}"
        run = write(folder, seed + n, 120)
        more = write(
            folder, seed + 1000 + n, 300, kill_after=rng.randrange(10, 200), start=120, mode="reuse"
        )
        run.then(more)
        tally.faults["reuse+kill"] += 1
        tally.merge(check(folder, run, f"reuse-{n}"))
        shutil.rmtree(folder, ignore_errors=True)
    return tally


def tenants_trials(work: Path, trials: int, seed: int) -> Tally:
    """A writer over five namespaces, two kept open (the others written out and closed
    between calls), that closes or is killed."""
    return _closed_or_killed(work, trials, seed, mode="tenants", fault="tenants", kill=(10, 250))


def chroma_trials(work: Path, trials: int, seed: int) -> Tally:
    """Chroma fails writes (applied or not) under a writer that closes or is killed."""
    return _closed_or_killed(work, trials, seed, mode="flaky", fault="chroma_fails", kill=(10, 150))


def close_trials(work: Path, trials: int, seed: int) -> Tally:
    """Threads add while the memory is closed: what returned is kept, the rest refused."""
    tally = Tally()
    for n in range(trials):
        folder = work / f"close-{n}"
        run = write(folder, seed + n, 300, mode="close_race")
        tally.faults["close_race"] += 1
        tally.merge(check(folder, run, f"close-{n}"))
        shutil.rmtree(folder, ignore_errors=True)
    return tally


def drop_trials(work: Path, trials: int, seed: int) -> Tally:
    """The memory dropped unclosed midway and reopened in the same process."""
    return _closed_or_killed(work, trials, seed, mode="drop", fault="drop", kill=(40, 200))


def _closed_or_killed(
    work: Path, trials: int, seed: int, *, mode: str, fault: str, kill: tuple[int, int]
) -> Tally:
    """A writer in ``mode`` that closes (even trials) or is killed after a number of lines
    drawn from ``kill`` (odd ones)."""
    tally = Tally()
    rng = random.Random(seed)
    for n in range(trials):
        folder = work / f"{fault}-{n}"
        killed = n % 2 == 1
        after = rng.randrange(*kill) if killed else None
        run = write(folder, seed + n, 300, kill_after=after, mode=mode)
        tally.faults[f"{fault}+kill" if killed else fault] += 1
        tally.merge(check(folder, run, f"{fault}-{n}"))
        shutil.rmtree(folder, ignore_errors=True)
    return tally


def journal_trials(work: Path, trials: int, seed: int) -> Tally:
    """Both copies of a killed writer's journal damaged, each way of :data:`BOTH` in turn."""
    tally = Tally()
    rng = random.Random(seed)
    for n in range(trials):
        folder = work / f"journals-{n}"
        run = write(folder, seed + n, 200, kill_after=10**9)  # killed once all is written
        journal = _journal(folder)
        if journal is None:
            tally.skipped += 1
            continue
        how = BOTH[n % len(BOTH)]
        _damage_both(journal, how, rng)
        tally.faults[f"both copies/{how}"] += 1
        tally.merge(check(folder, run, f"journals-{n} ({how})"))
        shutil.rmtree(folder, ignore_errors=True)
    return tally


def chroma_file_trials(work: Path, trials: int, seed: int) -> Tally:
    """``chroma.sqlite3`` emptied or deleted after a close: refused by name, then restored."""
    tally = Tally()
    for n in range(trials):
        folder = work / f"sqlite-{n}"
        run = write(folder, seed + n, 150)
        db = folder / "chroma.sqlite3"
        kept = folder.parent / f"sqlite-{n}.bak"
        shutil.copyfile(db, kept)
        how = "emptied" if n % 2 == 0 else "deleted"
        if how == "emptied":
            db.write_bytes(b"")
        else:
            db.unlink()
        tally.faults[f"chroma.sqlite3/{how}"] += 1
        tally.merge(
            check(
                folder,
                run,
                f"sqlite-{n} ({how})",
                retry=lambda db=db, kept=kept: shutil.copyfile(kept, db),  # type: ignore[misc]
                refused_first="refused StoreDamagedError",
            )
        )
        shutil.rmtree(folder, ignore_errors=True)
        kept.unlink(missing_ok=True)
    return tally


def lock_trials(work: Path, trials: int, seed: int) -> Tally:
    """While a writer holds the store, the lock's files are garbled or deleted and a second
    process tries to write: it must be refused (StoreLockedError)."""
    tally = Tally()
    for n in range(trials):
        folder = work / f"lock-{n}"
        how = "garbled" if n % 2 == 0 else "deleted"
        intruder: list[str] = []

        def meanwhile(folder: Path = folder, how: str = how, said: list[str] = intruder) -> None:
            for path in folder.glob("cogmem.lock*"):
                if how == "deleted":
                    path.unlink()
                else:
                    path.write_bytes(path.read_bytes() + b"\x00\x01")
            said.append(second_writer(folder))

        run = write(folder, seed + n, 120, kill_after=10**9, on_written=meanwhile)
        tally.faults[f"lock/{how}"] += 1
        trial = check(folder, run, f"lock-{n} ({how})")
        if intruder != ["refused"]:
            trial.wrong += 1
            trial.problems.append(f"lock-{n} ({how}): a second writer was {intruder}")
        tally.merge(trial)
        shutil.rmtree(folder, ignore_errors=True)
    return tally


# --------------------------------------------------------------------------- helpers


def _journal(folder: Path) -> Path | None:
    found = sorted((folder / "cogmem-index" / "cogmem").glob("*.journal"))
    return found[0] if found and found[0].stat().st_size else None


def _frames(data: bytes) -> list[int]:
    """Where each frame starts (its magic)."""
    return [i for i in range(len(data)) if data.startswith(b"CGJ2", i)]


def _damage_both(journal: Path, how: str, rng: random.Random) -> None:
    mirror = journal.with_name(f"{journal.name}.mirror")
    data = journal.read_bytes()
    starts = _frames(data)
    if how == "delete":
        journal.unlink()
        mirror.unlink(missing_ok=True)
        return
    if how in ("cut same", "cut frame"):
        at = rng.randrange(1, len(data)) if how == "cut same" else rng.choice(starts[1:] or [0])
        for copy in (journal, mirror):
            copy.write_bytes(copy.read_bytes()[:at])
        return
    # garbled apart: a different frame in each copy (every frame is whole in one of them)
    if len(starts) < 2:
        return
    first, second = rng.sample(range(len(starts)), 2)
    ends = [*starts[1:], len(data)]
    for copy, frame in ((journal, first), (mirror, second)):
        raw = bytearray(copy.read_bytes())
        raw[(starts[frame] + ends[frame]) // 2] ^= 0x10
        copy.write_bytes(bytes(raw))


def second_writer(folder: Path) -> str:
    """Try to open ``folder`` for writing in another process: ``refused``, ``opened`` or what
    it raised."""
    code = (
        f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'core')!r}]\n"
        "from cogmem import CognitiveMemory, StoreLockedError\n"
        "from cogmem.testing import HashingEmbedder\n"
        "try:\n"
        f"    CognitiveMemory(path={str(folder)!r}, embedder=HashingEmbedder({DIM})).close()\n"
        "    print('opened')\n"
        "except StoreLockedError:\n"
        "    print('refused')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    return done.stdout.strip() or f"exit {done.returncode}"
