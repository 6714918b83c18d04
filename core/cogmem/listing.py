"""The files of one namespace in the shared index folder, found without a scan per lookup.

Every namespace keeps its derived files in one folder (``cogmem-index/<store>/``), named
``<stem>.<writer>.<kind>``. Opening a namespace looks there for what other runs left (journals,
their mirrors and ledgers, doubt notes, vector files): six globs, each a scan of the whole
folder (75 ms at 10,000 namespaces), on every open of a namespace.

A folder no other process writes (a locked folder store, or one opened read-only: the lock
keeps writers out) is scanned once, when the store opens (:func:`watch`): what other runs left
is all there then, and only this writer adds files after, under its own name
(``<stem>.<writer>.<kind>``), which :func:`matching` looks for directly. Other folders are
scanned on every lookup.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["matching", "unwatch", "watch"]

_lock = threading.Lock()
# folder -> (the writer watching it, stem -> the names found when it was scanned)
_watched: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {}


def _scan(folder: Path) -> dict[str, tuple[str, ...]]:
    grouped: dict[str, list[str]] = {}
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                grouped.setdefault(entry.name.split(".", 1)[0], []).append(entry.name)
    except FileNotFoundError:
        return {}
    return {stem: tuple(names) for stem, names in grouped.items()}


def watch(folder: Path, writer: str) -> None:
    """Scan ``folder`` once for a store that alone writes it as ``writer`` (or reads it, with
    every writer locked out); a later :func:`matching` of it reads that scan."""
    found = _scan(folder)
    with _lock:
        _watched[str(folder)] = (writer, found)


def unwatch(folder: Path, writer: str) -> None:
    """Stop reading ``folder`` from its scan (the store of ``writer`` closed)."""
    with _lock:
        if _watched.get(str(folder), ("", {}))[0] == writer:
            del _watched[str(folder)]


def matching(folder: Path, stem: str, suffix: str) -> list[Path]:
    """The files of ``folder`` named ``<stem>.<anything><suffix>``, sorted (as
    ``folder.glob(f"{stem}.*{suffix}")`` for a ``stem`` without dots)."""
    with _lock:
        watched = _watched.get(str(folder))
    if watched is None:
        names = _scan(folder).get(stem, ())
    else:
        writer, found = watched
        names = (*found.get(stem, ()), f"{stem}.{writer}{suffix}")
    start = f"{stem}."
    fits = len(start) + len(suffix)  # "<stem>.<writer><suffix>", the writer possibly empty
    picked = {n for n in names if len(n) >= fits and n.startswith(start) and n.endswith(suffix)}
    paths = [folder / n for n in sorted(picked)]
    return paths if watched is None else [p for p in paths if p.exists()]
