"""Real faults for the integrity tests: child processes that die or hold a store, small and
read-only filesystems (tmpfs mounts), bytes garbled on disk."""

from __future__ import annotations

import contextlib
import gc
import os
import random
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def python(code: str, *, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter with the project on its path."""
    prefix = f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'core')!r}]\n"
    return subprocess.run(
        [sys.executable, "-c", prefix + code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


def start_python(code: str) -> subprocess.Popen[str]:
    """Start ``code`` in a new interpreter (stdin and stdout are pipes)."""
    prefix = f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'core')!r}]\n"
    return subprocess.Popen(
        [sys.executable, "-c", prefix + code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def flip_bit(path: Path, offset: int, bit: int = 3) -> None:
    """Flip one bit of ``path`` at byte ``offset``."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


def garble(path: Path, rng: random.Random, count: int = 8) -> None:
    """Overwrite ``count`` random bytes of ``path`` with random values (each one changed)."""
    data = bytearray(path.read_bytes())
    for _ in range(count):
        at = rng.randrange(len(data))
        data[at] = (data[at] + rng.randrange(1, 256)) % 256
    path.write_bytes(bytes(data))


def _mount(*args: str) -> bool:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    return done.returncode == 0


class SmallDisk:
    """A tmpfs of a given size, mounted for one test: a real disk that fills up."""

    def __init__(self, where: Path, size_mb: int) -> None:
        self.path = where
        self.size_mb = size_mb

    def resize(self, size_mb: int) -> None:
        """Grow (or shrink) the filesystem in place."""
        if not _mount("-o", f"remount,size={size_mb}m", str(self.path)):
            raise RuntimeError(f"cannot resize {self.path}")
        self.size_mb = size_mb

    def read_only(self, sub: Path | None = None) -> None:
        """Make the whole filesystem (or the folder ``sub`` in it, by a bind mount) read-only.

        A remount to read-only fails (EBUSY) while a file in it is open for writing: a handle
        of a closed store that only the garbage collector releases is collected first, and
        the remount tried again; a failure names the files this process still holds there.
        """
        if sub is None:
            for _ in range(5):
                gc.collect()
                if _mount("-o", "remount,ro", str(self.path)):
                    return
            raise RuntimeError(
                f"cannot remount {self.path} read-only; open here: {_open_files(self.path)}"
            )
        if not (_mount("--bind", str(sub), str(sub)) and _mount("-o", "remount,bind,ro", str(sub))):
            raise RuntimeError(f"cannot make {sub} read-only")


def _open_files(folder: Path) -> list[str]:
    """The files under ``folder`` this process has open (from /proc/self/fd)."""
    found = []
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(folder)):
            found.append(target)
    return sorted(found)


@contextlib.contextmanager
def small_disk(tmp_path: Path, size_mb: int) -> Iterator[SmallDisk]:
    """Mount a ``size_mb`` tmpfs under ``tmp_path`` for the duration (needs the privilege to
    mount, which this project's machines and CI have; elsewhere the test is skipped, saying so).
    """
    where = tmp_path / f"disk-{uuid.uuid4().hex[:8]}"
    where.mkdir()
    if not _mount("-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(where)):
        pytest.skip("mounting a tmpfs needs root (a real full or read-only disk is needed here)")
    disk = SmallDisk(where, size_mb)
    try:
        yield disk
    finally:
        for _ in range(3):  # bind mounts first, then the tmpfs itself
            subprocess.run(["umount", "-R", str(where)], capture_output=True, check=False)
        shutil.rmtree(where, ignore_errors=True)


def fill(disk: SmallDisk, leave_bytes: int) -> Path:
    """Fill ``disk`` until about ``leave_bytes`` are free; returns the filler file."""
    stats = os.statvfs(disk.path)
    free = stats.f_bavail * stats.f_frsize
    filler = disk.path / "filler"
    with filler.open("wb") as fh:
        fh.truncate(0)
        chunk = b"\0" * 65536
        remaining = max(0, free - leave_bytes)
        while remaining > 0:
            fh.write(chunk[: min(len(chunk), remaining)])
            remaining -= len(chunk)
    return filler
