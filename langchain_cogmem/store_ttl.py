"""TTLs of the LangGraph store, as LangGraph's SQLite and Postgres stores have them.

An item put with ``ttl`` (minutes, or the ``TTLConfig``'s ``default_ttl``) is a memory with a
hard expiry (:attr:`cogmem.MemoryRecord.expires_at`): search and get no longer see it from
then on, and a sweep deletes it. A read with ``refresh_ttl`` (``refresh_on_read`` by default)
moves the expiry to ``now + ttl``. Decay reorders; a TTL removes.
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta

from langgraph.store.base import TTLConfig

from cogmem import (
    CognitiveMemory,
    InvalidInputError,
    InvalidTypeError,
    MemoryRecord,
    StoreClosedError,
)

__all__ = ["TTL_KEY", "Sweeper", "check_ttl", "check_ttl_config", "expiry", "refreshed"]

log = logging.getLogger("cogmem")

#: An item's TTL in minutes, kept in its memory's metadata (so a read can refresh it).
TTL_KEY = "lg.ttl"

_CONFIG_KEYS = {
    "default_ttl": "minutes",
    "refresh_on_read": "bool",
    "sweep_interval_minutes": "minutes",
    "omit_expired": "bool",
}
# A sweeper with no interval configured sweeps this often (as LangGraph's stores do).
_DEFAULT_SWEEP_MINUTES = 5.0


def check_ttl(minutes: object, name: str = "ttl") -> float | None:
    """``minutes`` if it is ``None`` or a positive, finite number of minutes."""
    if minutes is None:
        return None
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)):
        raise InvalidTypeError(f"{name} must be a number of minutes, got {minutes!r}")
    if not math.isfinite(minutes) or minutes <= 0:
        raise InvalidInputError(f"{name} must be a positive number of minutes, got {minutes!r}")
    return float(minutes)


def check_ttl_config(config: object) -> TTLConfig | None:
    """A ``TTLConfig`` with known keys and sound values (``omit_expired`` is accepted, and
    always in force: an expired item is never read)."""
    if config is None:
        return None
    if not isinstance(config, Mapping):
        raise InvalidTypeError(f"ttl must be a TTLConfig dict, got {type(config).__name__}")
    unknown = sorted(set(config) - set(_CONFIG_KEYS))
    if unknown:
        raise InvalidInputError(
            f"unknown TTLConfig key(s) {unknown}; known: {sorted(_CONFIG_KEYS)}"
        )
    for key, kind in _CONFIG_KEYS.items():
        if key not in config:
            continue
        if kind == "bool" and not isinstance(config[key], bool):
            raise InvalidTypeError(f"ttl[{key!r}] must be a bool, got {config[key]!r}")
        if kind == "minutes":
            check_ttl(config[key], f"ttl[{key!r}]")
    return TTLConfig(**config)  # type: ignore[typeddict-item]


def expiry(now: datetime, minutes: float | None) -> datetime | None:
    """``now + minutes``, or ``None`` without a TTL."""
    return None if minutes is None else now + timedelta(minutes=minutes)


def refreshed(
    memory: CognitiveMemory, records: Iterable[MemoryRecord], namespace: str, now: datetime
) -> dict[str, MemoryRecord]:
    """The records that carry a TTL, their expiry moved to ``now + ttl`` (written, one call
    per distinct TTL), by id."""
    by_ttl: dict[float, list[str]] = {}
    for record in records:
        minutes = record.metadata.get(TTL_KEY)
        if isinstance(minutes, (int, float)) and not isinstance(minutes, bool):
            by_ttl.setdefault(float(minutes), []).append(record.id)
    out: dict[str, MemoryRecord] = {}
    for minutes, ids in by_ttl.items():
        for record in memory.set_expiry(ids, expiry(now, minutes), namespace=namespace):
            out[record.id] = record
    return out


class Sweeper:
    """A background thread that calls ``sweep`` every ``interval`` minutes, the first time
    as soon as it starts, until stopped; a sweep that raises is logged and the next one runs.
    It ends by itself once ``sweep`` returns ``False`` (what it sweeps is gone) or its memory
    was closed.
    """

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._done: concurrent.futures.Future[None] = concurrent.futures.Future()

    def start(
        self, sweep: Callable[[], bool], interval: float | None
    ) -> concurrent.futures.Future[None]:
        """Start sweeping (once: a running sweeper's future is returned again)."""
        if self._thread is not None and self._thread.is_alive():
            return self._done
        minutes = check_ttl(interval, "sweep_interval_minutes") or _DEFAULT_SWEEP_MINUTES
        self._stop.clear()
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._done = done

        def loop() -> None:
            try:
                while True:
                    try:
                        if not sweep():
                            break
                    except StoreClosedError:
                        log.info("the TTL sweeper stops: its memory was closed")
                        break
                    except Exception:
                        log.exception("the TTL sweep failed; the next one runs on schedule")
                    if self._stop.wait(minutes * 60):
                        break
            finally:
                done.set_result(None)

        self._thread = threading.Thread(target=loop, name="cogmem-ttl-sweeper", daemon=True)
        self._thread.start()
        return done

    def stop(self, timeout: float | None = None) -> bool:
        """Stop sweeping; ``True`` once the thread has ended (within ``timeout`` seconds)."""
        self._stop.set()
        if self._thread is None:
            return True
        if self._thread is threading.current_thread():  # stopped from a sweep: it ends next
            return False
        self._thread.join(timeout)
        return not self._thread.is_alive()
