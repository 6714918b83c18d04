"""Torture: faults on folder stores, counted against what was acknowledged. Prints one JSON object.

Every trial writes a folder store (``HashingEmbedder``, explicit ids, semantic memories with
tags and metadata) in a child process (:mod:`benchmarks.torture_writer`) that prints each id
once its ``add`` (or ``delete``) returned, applies one fault, reopens the store twice and
checks it:

* ``corrupt``: one derived file is damaged: the saved records, the BM25 file, the vector file,
  or one copy of a dead writer's journal (the journal or its mirror). A damage is a few random
  bytes changed, one flipped bit, a zeroed 4 KiB block, the file cut short, or the file gone.
* ``kill``: the writer is killed (SIGKILL) at a random moment while it adds, deletes and
  searches; sometimes a copy of its journal is then damaged too.
* ``disk_full``: the writer works on a small tmpfs filled up to around the reserve cogmem keeps;
  it goes on adding after its first refusal and either closes or is killed; the store is opened
  on the full disk, then again once space is freed.
* ``reuse``, ``chroma``, ``close``, ``drop``, ``journal``, ``chroma_file``, ``lock``: re-used
  ids with crashes, writes Chroma fails (applied or not), writes racing ``close()``, dropped
  handles, both journal copies damaged, an emptied or deleted ``chroma.sqlite3``, the lock's
  files damaged under a writer (:mod:`benchmarks.torture_faults`).

Counted (each must be 0):

* ``lost``: acknowledged adds (not acknowledged as deleted since) missing after reopening,
  unless the store reported the loss by count (``reported_lost``: both journal copies
  damaged, where no copy holds them);
* ``wrong``: memories whose text, type, importance, confidence, tags or metadata differ from what
  was acknowledged (as its latest version), acknowledged deletes that came back, memories of
  adds that raised, values no memory can hold, as cogmem returns them or as Chroma itself
  holds them (read with a client of its own); a second writer let in; a damaged store opened;
* ``unnamed``: exceptions, in the writer or on reopening, that are not a ``CogmemError``;
* ``failed_for_good``: stores that cannot be opened once the fault is over (space freed).

    python benchmarks/torture.py                       # ~35 min on 2 cores
    python benchmarks/torture.py --corrupt 2 --kill 4 --disk-full 2 --reuse 2 --chroma 2 \
        --close 2 --drop 2 --journal 4 --chroma-file 2 --lock 2    # a few minutes

Disk-full trials mount a tmpfs (root); where that is not allowed they are skipped and counted as
``skipped``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT / "core"), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from benchmarks.torture_writer import DIM, NOW, expected  # noqa: E402
from cogmem import CogmemError, CognitiveMemory  # noqa: E402
from cogmem.testing import HashingEmbedder  # noqa: E402

FILE_KINDS = ("records", "bm25", "vectors", "changes", "journal", "mirror")
DAMAGES = ("bytes", "bit", "block", "cut", "delete")


@dataclass
class Run:
    """What a writer said: acknowledged ids (minus acknowledged deletes) with the version each
    was last written as, the ids of adds that raised, and its errors."""

    acked: set[str] = field(default_factory=set)
    deleted: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    versions: dict[str, int] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)
    named: Counter[str] = field(default_factory=Counter)
    unnamed: list[str] = field(default_factory=list)

    def read(self, line: str) -> None:
        word, *rest = line.split(" ", 1)
        args = rest[0].split() if rest else []
        if word == "ack":
            for arg in args:
                memory_id, _, version = arg.partition("@")
                self.acked.add(memory_id)
                self.versions[memory_id] = int(version or 0)
                self.deleted.discard(memory_id)
                self.failed.discard(memory_id)
        elif word == "fail":
            self.failed.update(
                a.partition("@")[0] for a in args if a.partition("@")[0] not in self.acked
            )
        elif word == "hidden":
            self.hidden += args
        elif word == "del" and args:
            self.acked.discard(args[0])
            self.deleted.add(args[0])
        elif word == "named" and args:
            self.named[args[0]] += 1
        elif word == "unnamed":
            self.unnamed.append(rest[0] if rest else "")

    def then(self, later: Run) -> None:
        """Take in what a later writer of the same store said."""
        self.acked = (self.acked - later.deleted) | later.acked
        self.deleted = (self.deleted | later.deleted) - later.acked
        self.failed = (self.failed | later.failed) - self.acked
        self.versions.update(later.versions)
        self.hidden += later.hidden
        self.named.update(later.named)
        self.unnamed += later.unnamed


def _child(
    path: Path, seed: int, count: int, reserve_mb: float, close: bool, start: int, mode: str
) -> subprocess.Popen[str]:
    code = (
        f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'core')!r}]\n"
        "from benchmarks.torture_writer import writer\n"
        f"writer({str(path)!r}, {seed}, {count}, {reserve_mb}, {close}, {start}, {mode!r})\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def write(
    path: Path,
    seed: int,
    count: int,
    *,
    reserve_mb: float = 64.0,
    kill_after: int | None = None,
    close: bool = True,
    start: int = 0,
    mode: str = "plain",
    on_written: Callable[[], None] | None = None,
) -> Run:
    """Run a writer (``mode``: see :mod:`benchmarks.torture_writer`); with ``kill_after``,
    SIGKILL it once that many lines were read (or once it has written everything and waits,
    after ``on_written`` ran while it still holds the store)."""
    child = _child(path, seed, count, reserve_mb, close and kill_after is None, start, mode)
    run = Run()
    assert child.stdout is not None
    for lines, line in enumerate(child.stdout, start=1):
        run.read(line.strip())
        if kill_after is not None and (lines >= kill_after or line.startswith("written")):
            if on_written is not None and line.startswith("written"):
                on_written()
            child.send_signal(signal.SIGKILL)
            break
    child.wait(timeout=600)
    if kill_after is None and child.returncode != 0:
        tail = child.stderr.read()[-500:] if child.stderr else ""
        run.unnamed.append(f"writer exited {child.returncode}: {tail}")
    return run


# --------------------------------------------------------------------------- faults


def damage(path: Path, rng: random.Random, how: str | None = None) -> str:
    """Damage ``path`` one of the ways of :data:`DAMAGES` (``how``, or one drawn); returns
    which."""
    how = how or rng.choice(DAMAGES)
    data = bytearray(path.read_bytes())
    if how == "delete" or not data:
        path.unlink()
        return "delete"
    if how == "bytes":
        for _ in range(rng.randrange(1, 17)):
            at = rng.randrange(len(data))
            data[at] = (data[at] + rng.randrange(1, 256)) % 256
    elif how == "bit":
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == "block":
        start = rng.randrange(0, len(data), 4096) if len(data) > 4096 else 0
        data[start : start + 4096] = bytes(len(data[start : start + 4096]))
    else:  # cut
        data = data[: rng.randrange(len(data))]
    path.write_bytes(bytes(data))
    return how


def derived_file(folder: Path, kind: str) -> Path | None:
    """The store's file of that kind, if it has one."""
    index = folder / "cogmem-index" / "cogmem"
    pattern = {
        "records": "*.records.pkl",
        "bm25": "*.bm25.npz",
        "vectors": "*.vectors",
        "changes": "*.changes",
        "journal": "*.journal",
        "mirror": "*.journal.mirror",
    }[kind]
    found = sorted(index.glob(pattern))
    return found[0] if found else None


# --------------------------------------------------------------------------- checking


@dataclass
class Tally:
    """Counts over trials. ``lost`` is what was lost without a word; ``reported_lost`` what
    the store said it lost (both journal copies damaged: no copy holds it), by count."""

    trials: int = 0
    lost: int = 0
    reported_lost: int = 0
    wrong: int = 0
    unnamed: int = 0
    failed_for_good: int = 0
    skipped: int = 0
    named: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def merge(self, other: Tally) -> None:
        for name in (
            "trials",
            "lost",
            "reported_lost",
            "wrong",
            "unnamed",
            "failed_for_good",
            "skipped",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.named.update(other.named)
        self.faults.update(other.faults)
        self.problems += other.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "lost": self.lost,
            "reported_lost": self.reported_lost,
            "wrong": self.wrong,
            "unnamed": self.unnamed,
            "failed_for_good": self.failed_for_good,
            "skipped": self.skipped,
            "named_errors_seen": dict(sorted(self.named.items())),
            "faults": dict(sorted(self.faults.items())),
            "problems": self.problems[:20],
        }


def _valid(record: Any) -> bool:
    return (
        0.0 <= record.importance <= 1.0
        and 0.0 <= record.confidence <= 1.0
        and 0.0 <= record.stability <= 1.0
        and record.access_count >= 0
    )


def _differs(record: Any, i: int, version: int = 0) -> bool:
    want = expected(i, version)
    return (
        record.text != want["text"]
        or record.memory_type != want["memory_type"]
        or record.importance != want["importance"]
        or record.confidence != want["confidence"]
        or tuple(record.tags) != want["tags"]
        or dict(record.metadata) != want["metadata"]
    )


class _Reports(logging.Handler):
    """Sums what cogmem's ERROR records say was lost (``cogmem_lost``)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lost = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.lost += int(getattr(record, "cogmem_lost", 0))


def check(
    folder: Path,
    run: Run,
    label: str,
    *,
    retry: Callable[[], None] | None = None,
    refused_first: str | None = None,
) -> Tally:
    """Reopen the store twice and count what was lost or wrong. A store may refuse while its
    fault lasts (a full disk: a dead writer's adds cannot be written yet); ``retry`` ends the
    fault, and only a store that still cannot be used then has failed for good.
    ``refused_first``: the error the first open must raise (else the trial counts as wrong).
    A loss the store reported (by count, in an ERROR record) is ``reported_lost``; only the
    rest is ``lost``."""
    tally = Tally(trials=1)
    tally.named.update(run.named)
    for problem in run.unnamed:
        tally.unnamed += 1
        tally.problems.append(f"{label}: writer: {problem}")
    if run.hidden:  # acknowledged, and not seen by the same process reopening the store
        tally.lost += len(run.hidden)
        tally.problems.append(f"{label}: hidden after a drop: {run.hidden[:5]}")
    reports = _Reports()
    logging.getLogger("cogmem").addHandler(reports)
    try:
        for attempt in range(2):
            outcome = _verify(folder, run, tally, label, reports, search=attempt == 0)
            if attempt == 0 and refused_first is not None and outcome != refused_first:
                tally.wrong += 1
                tally.problems.append(f"{label}: the first open was {outcome}, not refused")
            if outcome.startswith("refused") and retry is not None:
                retry()
                retry = None
                outcome = _verify(folder, run, tally, label, reports, search=attempt == 0)
            if outcome != "ok":
                tally.failed_for_good += 1
                return tally
    finally:
        logging.getLogger("cogmem").removeHandler(reports)
    tally.wrong += _check_chroma(folder, run, tally, label, reports.lost)
    return tally


def _count_lost(tally: Tally, lost: int, reported: int) -> None:
    tally.reported_lost += min(lost, reported)
    tally.lost += max(0, lost - reported)


def _verify(
    folder: Path, run: Run, tally: Tally, label: str, reports: _Reports, *, search: bool
) -> str:
    """Open the store, check every acknowledged memory, search once, close: ``ok``,
    ``refused <Error>`` (a named error: the fault may still last) or ``failed`` (an unnamed
    one). Memories of adds that raised must be absent."""
    try:
        mem = CognitiveMemory(path=folder, embedder=HashingEmbedder(DIM))
    except CogmemError as exc:
        tally.named[type(exc).__name__] += 1
        return f"refused {type(exc).__name__}"
    except Exception as exc:
        tally.unnamed += 1
        tally.problems.append(f"{label}: open raised {type(exc).__name__}: {str(exc)[:160]}")
        return "failed"
    outcome = "ok"
    try:
        records = {r.id: r for name in mem.namespaces() for r in mem.records(name)}
        lost = [m for m in run.acked if m not in records]
        wrong = [
            m
            for m in run.acked
            if m in records
            and (_differs(records[m], int(m[1:]), run.versions.get(m, 0)) or not _valid(records[m]))
        ]
        phantoms = [m for m in run.failed if m in records]
        _count_lost(tally, len(lost), reports.lost)
        tally.wrong += len(wrong) + len(phantoms) + sum(1 for d in run.deleted if d in records)
        tally.problems += [f"{label}: a failed add is stored: {m}" for m in phantoms[:3]]
        tally.wrong += sum(1 for r in records.values() if not _valid(r))
        if len(lost) > reports.lost:
            tally.problems += [f"{label}: lost {m}" for m in lost[:3]]
        tally.problems += [f"{label}: wrong {records[m]}" for m in wrong[:3]]
        if search:
            mem.search("ferry to island 7", now=NOW + timedelta(days=40))
    except CogmemError as exc:
        tally.named[type(exc).__name__] += 1
        tally.problems.append(f"{label}: {type(exc).__name__}: {str(exc)[:160]}")
        outcome = "refused"
    except Exception as exc:
        tally.unnamed += 1
        tally.problems.append(f"{label}: raised {type(exc).__name__}: {str(exc)[:160]}")
        outcome = "failed"
    try:
        mem.close()
    except CogmemError as exc:
        tally.named[type(exc).__name__] += 1
        outcome = "refused" if outcome == "ok" else outcome
    except Exception as exc:
        tally.unnamed += 1
        tally.problems.append(f"{label}: close raised {type(exc).__name__}: {exc}")
        outcome = "failed"
    return outcome


def _check_chroma(folder: Path, run: Run, tally: Tally, label: str, reported: int) -> int:
    """What Chroma itself holds: every acknowledged memory, with the values written."""
    import chromadb
    from chromadb.config import Settings

    from cogmem.chroma_layout import from_chroma
    from cogmem.shared_namespaces import names_collection, packed_collection

    client = chromadb.PersistentClient(
        path=str(folder), settings=Settings(anonymized_telemetry=False)
    )
    held = {}
    try:
        for collection in client.list_collections():  # the default namespace and the others
            if collection.name == "cogmem" or collection.name.startswith("cogmem.ns."):
                if collection.name == names_collection("cogmem"):
                    continue  # the packed namespaces' entries: no memories
                got = collection.get(include=["documents", "metadatas"])
                ids = got["ids"]
                if collection.name == packed_collection("cogmem"):  # ids are <digest>/<id>
                    ids = [i.split("/", 1)[1] for i in ids]
                held.update(zip(ids, zip(got["documents"], got["metadatas"])))
    finally:
        client.close()
    wrong = 0
    for memory_id, (doc, meta) in held.items():
        record = from_chroma(memory_id, doc, meta)
        acked = memory_id in run.acked
        version = run.versions.get(memory_id, 0)
        if (
            not _valid(record)
            or (acked and _differs(record, int(memory_id[1:]), version))
            or memory_id in run.failed
        ):
            wrong += 1
            tally.problems.append(f"{label}: Chroma holds a wrong {memory_id}: {record}")
    missing = run.acked - set(held)
    _count_lost(tally, len(missing), reported)
    if len(missing) > reported:  # every acknowledged add reached Chroma once closed
        tally.problems.append(f"{label}: not in Chroma: {sorted(missing)[:5]}")
    return wrong


# --------------------------------------------------------------------------- trials


def corrupt_trials(work: Path, trials: int, seed: int) -> Tally:
    """Damage each derived file kind ``trials`` times (a copy of one base store each time)."""
    tally = Tally()
    rng = random.Random(seed)
    closed, killed, changed = work / "base-closed", work / "base-killed", work / "base-changed"
    base_closed = write(closed, seed, 260)
    # A writer that closed once (saved index, vector file), then wrote again and was killed.
    base_killed = write(killed, seed + 1, 200)
    base_killed.then(write(killed, seed + 2, 40, kill_after=10**9, start=200))  # when done
    # A namespace Chroma answers (no vector file) closed twice: the second close saved its
    # changes alone.
    base_changed = write(changed, seed + 3, 200, mode="changes")
    base_changed.then(write(changed, seed + 4, 40, start=200, mode="changes"))
    bases = {"journal": killed, "mirror": killed, "changes": changed}
    runs = {killed: base_killed, changed: base_changed, closed: base_closed}
    for kind in FILE_KINDS:
        base = bases.get(kind, closed)
        run = runs[base]
        for n in range(trials):
            trial = work / f"{kind}-{n}"
            shutil.copytree(base, trial)
            target = derived_file(trial, kind)
            if target is None:
                tally.skipped += 1
                continue
            how = damage(target, rng, DAMAGES[n % len(DAMAGES)])  # every way, in turn
            tally.faults[f"{kind}/{how}"] += 1
            tally.merge(check(trial, run, f"{kind}-{n} ({how})"))
            shutil.rmtree(trial)
    return tally


def kill_trials(work: Path, trials: int, seed: int) -> Tally:
    """SIGKILL a writer at a random moment; every other trial also damages a journal copy."""
    tally = Tally()
    rng = random.Random(seed)
    for n in range(trials):
        folder = work / f"kill-{n}"
        run = write(folder, seed + n, 400, kill_after=rng.randrange(5, 120))
        if n % 2 and (target := derived_file(folder, rng.choice(("journal", "mirror")))):
            tally.faults[f"kill+{target.suffix}/{damage(target, rng)}"] += 1
        else:
            tally.faults["kill"] += 1
        tally.merge(check(folder, run, f"kill-{n}"))
        shutil.rmtree(folder, ignore_errors=True)
    return tally


def disk_full_trials(work: Path, trials: int, seed: int) -> Tally:
    """Fill a tmpfs to around cogmem's reserve while a writer adds; then close or kill it."""
    tally = Tally()
    rng = random.Random(seed)
    for n in range(trials):
        mount = work / f"disk-{n}-{uuid.uuid4().hex[:6]}"
        mount.mkdir()
        if subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mount)]
        ).returncode:
            tally.skipped += 1
            continue
        try:
            folder = mount / "store"
            filler = mount / "filler"
            stats = os.statvfs(mount)
            free = stats.f_bavail * stats.f_frsize
            leave = int((64 + rng.uniform(0.2, 6)) * 2**20)
            with filler.open("wb") as fh:
                fh.truncate(max(0, free - leave))
                fh.seek(0)
                remaining = max(0, free - leave)
                while remaining > 0:  # tmpfs counts written pages, not a file's size
                    fh.write(bytes(min(remaining, 1 << 20)))
                    remaining -= 1 << 20
            killed = n % 2 == 1
            run = write(folder, seed + n, 3000, kill_after=400 if killed else None)
            tally.faults["disk_full+kill" if killed else "disk_full"] += 1
            tally.merge(check(folder, run, f"disk-{n}", retry=lambda f=filler: f.unlink()))
        finally:
            subprocess.run(["umount", str(mount)], capture_output=True)
            shutil.rmtree(mount, ignore_errors=True)
    return tally


#: The trial families of the third integrity round (:mod:`benchmarks.torture_faults`) and
#: their default number of trials.
ROUND_THREE = {
    "tenants": 20,
    "reuse": 40,
    "chroma": 40,
    "close": 20,
    "drop": 20,
    "journal": 60,
    "chroma_file": 20,
    "lock": 20,
}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corrupt", type=int, default=60, help="trials per derived file kind")
    parser.add_argument("--kill", type=int, default=40, help="SIGKILL trials")
    parser.add_argument("--disk-full", type=int, default=10, help="disk-full trials")
    for name, default in ROUND_THREE.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    out: dict[str, Any] = {"seed": args.seed}
    total = Tally()
    from benchmarks import torture_faults

    families: dict[str, Callable[[Path, int, int], Tally]] = {
        "corrupt": corrupt_trials,
        "kill": kill_trials,
        "disk_full": disk_full_trials,
        **{name: getattr(torture_faults, f"{name}_trials") for name in ROUND_THREE},
    }
    with tempfile.TemporaryDirectory(prefix="cogmem-torture-") as tmp:
        work = Path(tmp)
        for name, trials in families.items():
            (work / name).mkdir()
            tally = trials(work / name, getattr(args, name), args.seed)
            out[name] = tally.as_dict()
            total.merge(tally)
            print(f"[torture] {name}: {tally.as_dict()}", file=sys.stderr, flush=True)
    out["total"] = total.as_dict()
    out["all_zero"] = not (total.lost or total.wrong or total.unnamed or total.failed_for_good)
    out["trials"] = total.trials
    out["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
