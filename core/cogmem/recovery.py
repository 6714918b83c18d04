"""What a dead writer left: the adds it acknowledged but had not written to Chroma yet.

A writer that dies leaves its journal of held adds (:mod:`cogmem.held`) behind. The next object
to load the namespace (:class:`~cogmem.namespace.Namespace`) calls :func:`recover`:

* a writer writes what the journals hold and Chroma lacks, then deletes the journals;
* a read-only opener shows those memories (indexed, held in memory), and writes nothing.

A journal that held bytes that could not be read back (a flipped bit, a frame that does not
decode) or memories of another vector width is never deleted: what checks out is written, the
rest reported (an ERROR log line naming the file), and the file moved aside
(``<name>.damaged-<time>``) for a person to look at.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from .held import claim_orphans, read_orphans

if TYPE_CHECKING:
    from .namespace import Namespace

__all__ = ["recover"]

log = logging.getLogger("cogmem")


def recover(namespace: Namespace, stem: str, folder: Path, *, read_only: bool) -> None:
    """Write (or, ``read_only``, show) what dead writers' journals of ``stem`` in ``folder``
    hold and the namespace lacks."""
    if read_only:
        _show(namespace, stem, folder)
        return
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
        if not read.damage and not refused:
            journal.discard()
            continue
        kept = journal.set_aside()
        problems = [f"{d.length} bytes at {d.offset} ({d.reason})" for d in read.damage]
        problems += [f"{refused} memories of another vector width"] if refused else []
        log.error(
            "namespace %r: the add journal %s held what could not be written back: %s. "
            "Acknowledged adds may be lost there; the %d memories that checked out are "
            "stored. The journal was kept as %s",
            namespace.name,
            journal.path.name,
            "; ".join(problems),
            written,
            kept,
        )


def _show(namespace: Namespace, stem: str, folder: Path) -> None:
    """Index what dead writers' journals hold (no writer can be alive while a read-only store
    is open), held in memory beside Chroma's memories, never written."""
    width = namespace.width()
    entries = [
        e
        for e in read_orphans(folder, stem)
        if e.record.id not in namespace and (width is None or len(e.vector) == width)
    ]
    if entries:
        namespace.show_held(entries)
