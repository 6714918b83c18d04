"""The torture benchmark's writer: the child process that writes a folder store and says what
was acknowledged, and the oracle of what each memory must hold (``benchmarks/torture.py``).

The writer prints one line per outcome: ``ack m5 m6`` (adds returned), ``ack m5@2`` (memory
``m5`` written again, after a delete, as its version 2), ``del m5`` (a delete returned),
``fail m7 m8`` (an add that raised: none of it may be stored), ``hidden m3`` (acknowledged,
yet not seen by the store reopened after a drop), ``named X`` / ``unnamed X ...`` (an error,
by class). Its modes add one fault each:

* ``plain``: bulk add, single adds held in the journal, small batches, deletes, searches;
* ``reuse``: also deletes memories and adds them again under the same id with a new text,
  sometimes through Chroma directly (a large call), after a close that saved the index;
* ``flaky``: Chroma's collection fails about one write in six, before or after applying it;
* ``drop``: the memory is dropped without ``close()`` midway and the store opened again;
* ``close_race``: three threads add while the main thread closes the memory;
* ``tenants``: each memory goes to one of five namespaces (:func:`spot`), and the memory
  keeps two open (``open_namespaces=2``): namespaces are written out and closed, and opened
  again, between calls;
* ``changes``: as ``plain``, but the namespace is one Chroma answers (as past ``EXACT_SCAN``
  memories: no vector file) and a close saves its changes alone however many
  (:mod:`cogmem.changes`).
"""

from __future__ import annotations

import gc
import random
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from cogmem import CogmemError, CognitiveMemory, CognitiveMemoryConfig, MemoryInput
from cogmem.testing import HashingEmbedder

__all__ = ["DIM", "MODES", "NOW", "expected", "spot", "writer"]

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
DIM = 64
MODES = ("plain", "reuse", "flaky", "drop", "close_race", "tenants", "changes")
_TAGS = ("home", "work", "health", "travel")


def spot(i: int, mode: str) -> str:
    """The namespace memory ``m<i>`` is written to in ``mode``."""
    return f"t{i % 5}" if mode == "tenants" else "default"


def expected(i: int, version: int = 0) -> dict[str, Any]:
    """The fields memory ``m<i>`` is written with as its ``version`` (the oracle)."""
    rng = random.Random(i)
    again = f" (version {version})" if version else ""
    return {
        "text": f"note {i}{again}: the ferry to island {rng.randrange(50)} leaves at "
        f"{rng.randrange(24)}h",
        "memory_type": "semantic",
        "importance": round(rng.uniform(0.05, 0.95), 6),
        "confidence": round(rng.uniform(0.5, 1.0), 6),
        "tags": (rng.choice(_TAGS),),
        "metadata": {"i": i, "shard": f"s{i % 7}", "ok": i % 2 == 0, "v": version},
    }


class _Flaky:
    """A Chroma collection that fails about one write in six: half of them after applying it
    (Chroma may raise on a write it applied), half before."""

    def __init__(self, inner: Any, rng: random.Random) -> None:
        self._inner, self._rng = inner, rng

    def __getattr__(self, name: str) -> Any:
        real = getattr(self._inner, name)
        if name not in ("add", "update", "delete"):
            return real

        def call(**kwargs: Any) -> Any:
            roll = self._rng.random()
            if roll < 0.04:  # what a disk filling inside Chroma's write said
                real(**kwargs)
                raise RuntimeError("Error in compaction: Failed to apply logs (injected)")
            if roll < 0.08:
                real(**kwargs)
                raise RuntimeError("injected after applying")
            if roll < 0.16:
                raise RuntimeError("injected before applying")
            return real(**kwargs)

        return call


def writer(
    path: str,
    seed: int,
    count: int,
    reserve_mb: float,
    close: bool,
    start: int = 0,
    mode: str = "plain",
) -> None:
    """Write ``count`` memories ``m<start>`` on (see the module docstring), printing each
    outcome; then close (or wait to be killed). Exceptions are printed and the work goes on."""
    rng = random.Random(seed)
    if mode == "changes":
        import cogmem.changes
        import cogmem.namespace

        cogmem.namespace.EXACT_SCAN = 50  # type: ignore[misc]
        cogmem.changes.CHANGES_SHARE = 1  # type: ignore[misc]
    config = CognitiveMemoryConfig(
        disk_reserve_mb=reserve_mb, open_namespaces=2 if mode == "tenants" else 32
    )
    said = threading.Lock()

    def say(*words: object) -> None:
        with said:
            print(*words, flush=True)

    def attempt(
        action: Callable[..., object], *args: Any, ids: list[str] | None = None, **kwargs: Any
    ) -> bool:
        """Call ``action(*args, **kwargs)``; say what it raised (and ``ids``, failed)."""
        try:
            action(*args, **kwargs)
        except CogmemError as exc:
            say("named", type(exc).__name__)
            if ids:
                say("fail", *ids)
            return False
        except Exception as exc:  # counted: every error cogmem raises should be named
            say("unnamed", type(exc).__name__, str(exc)[:200].replace("\n", " "))
            return False
        return True

    def open_memory() -> CognitiveMemory | None:
        try:
            return CognitiveMemory(path=path, embedder=HashingEmbedder(DIM), config=config)
        except CogmemError as exc:
            say("named", type(exc).__name__)
            return None

    mem = open_memory()
    if mem is None:
        return
    if mode == "flaky":
        space = mem._spaces.get("default")
        assert space is not None
        space.store._collection = _Flaky(space.store.collection, rng)
    if mode == "close_race":
        _close_race(mem, start, count, attempt, say)
        return
    end = start + count
    bulk = [_input(j, mode=mode) for j in range(start, start + min(count // 2, 150))]
    ids = [f"m{j}" for j in range(start, start + len(bulk))]
    if attempt(mem.add_many, bulk, now=NOW, ids=ids):
        say("ack", *ids)
    versions: dict[int, int] = {}
    acked = list(range(start, start + len(bulk)))
    if mode == "reuse":  # also what earlier writers stored (in the saved index)
        acked = list(range(start)) + acked
    dropped_at = rng.randrange(start, end) if mode == "drop" else None
    i = start + len(bulk)
    while i < end:
        step = rng.random()
        if dropped_at is not None and i >= dropped_at:
            dropped_at = None
            del mem  # no close(): its journal must reach the next opener
            gc.collect()
            again = open_memory()
            if again is None:
                return
            mem = again
            seen = {r.id for r in mem.records()}
            say("hidden", *(f"m{a}" for a in acked if f"m{a}" not in seen))
        if mode == "reuse" and step < 0.15 and acked:
            n = rng.choice(acked)
            v = versions.get(n, 0) + 1
            if not attempt(mem.delete, f"m{n}", namespace=spot(n, mode)):
                continue
            say("del", f"m{n}")
            acked.remove(n)
            batch = [_input(n, v, mode)]
            if rng.random() < 0.5:  # through Chroma at once, past the held group
                batch += [_input(j, mode=mode) for j in range(i, min(end, i + 70))]
            fresh = [f"m{j}" for j in range(i, i + len(batch) - 1)]
            if attempt(mem.add_many, batch, now=NOW, ids=[f"m{n}@{v}", *fresh]):
                say("ack", f"m{n}@{v}", *fresh)
                versions[n] = v
                acked += [n, *range(i, i + len(fresh))]
            i += len(fresh)
        elif step < 0.55:
            if attempt(mem.add_many, [_input(i, mode=mode)], now=NOW, ids=[f"m{i}"]):
                say("ack", f"m{i}")
                acked.append(i)
            i += 1
        elif step < 0.75:
            span = range(i, min(end, i + rng.randrange(2, 30)))
            ids = [f"m{j}" for j in span]
            if attempt(mem.add_many, [_input(j, mode=mode) for j in span], now=NOW, ids=ids):
                say("ack", *ids)
                acked += list(span)
            i += len(span)
        elif step < 0.8 and acked:
            n = rng.choice(acked)
            if attempt(mem.delete, f"m{n}", namespace=spot(n, mode)):
                say("del", f"m{n}")
                acked.remove(n)
        else:
            query = f"ferry to island {rng.randrange(50)}"
            later = NOW + timedelta(days=rng.randrange(30))
            attempt(mem.search, query, now=later, namespace=spot(rng.randrange(5), mode))
    say("written")
    if close:
        attempt(mem.close)
        say("closed")
    else:
        while True:  # held open until killed
            time.sleep(0.1)


def _close_race(
    mem: CognitiveMemory,
    start: int,
    count: int,
    attempt: Callable[..., bool],
    say: Callable[..., None],
) -> None:
    """Three threads add one memory at a time while the main thread closes the memory after
    the first acknowledgements: every add that returned must be stored, every later one
    refused by name."""
    enough = threading.Event()
    per = count // 3

    def adder(first: int) -> None:
        for j in range(first, first + per):
            if not attempt(mem.add_many, [_input(j)], now=NOW, ids=[f"m{j}"]):
                return
            say("ack", f"m{j}")
            if j - first >= 5:
                enough.set()

    threads = [threading.Thread(target=adder, args=(start + k * per,)) for k in range(3)]
    for thread in threads:
        thread.start()
    enough.wait(timeout=60)
    attempt(mem.close)
    for thread in threads:
        thread.join()
    say("written")
    say("closed")


def _input(i: int, version: int = 0, mode: str = "plain") -> MemoryInput:
    e = expected(i, version)
    return MemoryInput(
        text=e["text"],
        id=f"m{i}",
        namespace=spot(i, mode),
        memory_type=e["memory_type"],
        importance=e["importance"],
        confidence=e["confidence"],
        tags=list(e["tags"]),
        metadata=e["metadata"],
    )
