"""What a dead writer left: the adds it acknowledged but had not written to Chroma yet.

A writer that dies leaves its journal of held adds (:mod:`cogmem.held`) behind. The next object
to load the namespace (:class:`~cogmem.namespace.Namespace`) calls :func:`recover`:

* a writer writes what the journals hold and Chroma lacks, then deletes the journals;
* a read-only opener shows those memories (indexed, held in memory), and writes nothing.

A journal that held bytes that could not be read back (a flipped bit, a frame that does not
decode), fewer memories than its ledger counts (both copies cut or deleted), or memories of
another vector width is never deleted: what checks out is written, the rest reported (an ERROR
log line naming the file and, where the ledger tells, how many acknowledged adds are lost; the
record carries that number as ``cogmem_lost``), and the file moved aside
(``<name>.damaged-<time>``) for a person to look at. A read-only open reports the same, and
moves nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import StoreDamagedError
from .frames import JournalRead
from .held import claim_orphans, read_orphan_journals
from .listing import matching

if TYPE_CHECKING:
    from .namespace import Namespace

__all__ = ["doubt_path", "recover", "refuse_lost_chroma"]

_DOUBT = ".doubt"


def doubt_path(folder: Path, stem: str, writer: str) -> Path:
    """Where writer ``writer`` notes its failed adds in doubt in namespace ``stem``
    (:class:`~cogmem.store.ChromaStore`)."""
    return folder / f"{stem}.{writer}{_DOUBT}"


log = logging.getLogger("cogmem")


def recover(namespace: Namespace, stem: str, folder: Path, *, read_only: bool) -> None:
    """Write (or, ``read_only``, show) what dead writers' journals of ``stem`` in ``folder``
    hold and the namespace lacks."""
    if read_only:
        _show(namespace, stem, folder)
        return
    # First what failed adds of dead writers left in Chroma (a call that raised leaves
    # nothing), then the journals: replayed after, they write back what the settling took.
    for note in matching(folder, stem, _DOUBT):
        namespace.forget(namespace.store.settle_noted(note))
    for journal in claim_orphans(folder, stem):
        try:
            read = journal.read()
            fresh = [e for e in read.entries if e.record.id not in namespace]
            if fresh:
                present = namespace.store.existing([e.record.id for e in fresh])
                fresh = [e for e in fresh if e.record.id not in present]
            written, refused = namespace.write_back(fresh)
        except BaseException:
            journal.release()  # left for the next open
            raise
        if written:
            log.info(
                "namespace %r: wrote %d acknowledged adds left in %s",
                namespace.name,
                written,
                journal.path.name,
            )
        if not read.damage and not read.missing and not refused:
            journal.discard()
            continue
        kept = journal.set_aside()
        _report(namespace.name, journal.path.name, read, refused, f"The journal was kept as {kept}")


def refuse_lost_chroma(folder: Path, index_root: Path) -> None:
    """Refuse to open a folder store whose Chroma file is gone or empty while cogmem's files
    beside it (saved indexes, journals) hold memories: Chroma would open it as a new, empty
    store, and the saved index, the last copy of those records, would be overwritten on close.

    Raises:
        StoreDamagedError: So it is (names both; nothing is changed).
    """
    db = folder / "chroma.sqlite3"
    try:
        if db.stat().st_size > 0:
            return
        state = "is empty (0 bytes)"
    except FileNotFoundError:
        state = "is missing"
    except OSError:
        return  # unreadable: Chroma's own open names it
    index = index_root / "cogmem-index"
    kept = [
        p
        for pattern in ("*/*.records.pkl", "*/*.journal", "*/*.ledger")
        for p in index.glob(pattern)
    ]
    if kept:
        raise StoreDamagedError(
            f"the store at {folder} cannot be opened: its Chroma file {db} {state}, but "
            f"cogmem's files in {index} still hold memories ({len(kept)} saved index or journal "
            "files). Opening it would start an empty store and overwrite them, so nothing was "
            "opened or changed. Restore chroma.sqlite3 from a backup; to start an empty store "
            f"here instead, move {index} aside first",
            path=str(folder),
        )


def _report(name: str, journal: str, read: JournalRead, refused: int, then: str) -> None:
    """Log, as an ERROR, what a journal held that cannot be stored."""
    problems = [f"{d.length} bytes at {d.offset} ({d.reason})" for d in read.damage]
    if read.missing:
        problems.append(
            f"{read.missing} of the {read.expected} memories its ledger counts are in neither "
            "copy (cut or deleted)"
        )
    problems += [f"{refused} memories of another vector width"] if refused else []
    lost = "are lost" if read.missing else "may be lost"
    log.error(
        "namespace %r: the add journal %s held what cannot be stored: %s. Acknowledged adds "
        "%s there (%d by its ledger); the %d memories that checked out are stored. %s",
        name,
        journal,
        "; ".join(problems),
        lost,
        read.missing,
        len(read.entries) - refused,
        then,
        extra={"cogmem_lost": read.missing},
    )


def _show(namespace: Namespace, stem: str, folder: Path) -> None:
    """Index what dead writers' journals hold (no writer can be alive while a read-only store
    is open), held in memory beside Chroma's memories, never written; report what they lost."""
    width = namespace.width()
    entries = []
    for path, read in read_orphan_journals(folder, stem):
        refused = [e for e in read.entries if width is not None and len(e.vector) != width]
        if read.damage or read.missing or refused:
            _report(namespace.name, path.name, read, len(refused), "Opened read-only: kept as is")
        entries += [e for e in read.entries if e.record.id not in namespace and e not in refused]
    if entries:
        namespace.show_held(entries)
