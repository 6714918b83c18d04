"""The bytes of an add journal (:mod:`cogmem.held`): frames, and how a journal and its
mirror are read back past damage.

Journal format, one frame per ``add``/``add_many`` call::

    b"CGJ2" | n: u32 LE | crc32(payload): u32 LE | crc32(the 12 bytes before): u32 LE
            | payload: n bytes of UTF-8 JSON

    payload = {"ids": [...], "documents": [...], "metadatas": [...],  # as Chroma stores them
               "dim": d, "vectors": base64 of the float32 little-endian matrix (rows × d)}

A frame is written with one ``write``; if that fails the file is cut back to its previous
length. Reading (:func:`read_frames`) tells three things apart:

* a *torn tail*: the last bytes hold less than a header, or a header that checks out and
  announces more bytes than follow: an add that never returned (its ``write`` was cut short),
  dropped without a word;
* *damage*: a header or payload that does not check out although the bytes are all there, or a
  payload that checks out but cannot be decoded: an acknowledged add the disk garbled. Reading
  resynchronises at the next header that checks out, so one bad frame costs only itself, and
  the damage is reported (offset, length, why);
* the good frames, all of them.

Frames of the first format (``b"CGJ1"``, no header checksum) are still read.

The two copies receive the same frames at the same offsets (:func:`read_pair`), so damage in
one is made good by the other. Both copies cut at one frame boundary, or both deleted, read as
a shorter journal: the ledger beside them (:mod:`cogmem.ledger`) tells, and
:attr:`JournalRead.missing` counts what falls short.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .chroma_layout import from_chroma, to_metadata
from .errors import StoreError
from .records import MemoryRecord

__all__ = [
    "Damage",
    "JournalEntry",
    "JournalRead",
    "decode_frames",
    "encode_frame",
    "read_frames",
    "read_pair",
]

FloatArray = npt.NDArray[np.float32]

_MAGIC = b"CGJ2"
_HEADER = struct.Struct("<4sIII")  # magic, payload length, crc32 of payload, crc32 of the rest
_OLD_MAGIC = b"CGJ1"
_OLD_HEADER = struct.Struct("<4sII")  # magic, payload length, crc32 of the payload


@dataclass(frozen=True)
class JournalEntry:
    """One memory read back from a journal."""

    record: MemoryRecord
    seq: int
    vector: FloatArray


@dataclass(frozen=True)
class Damage:
    """Bytes of a journal that could not be read back although they were written whole.

    Attributes:
        offset: Where they start in the file.
        length: How many bytes were skipped.
        reason: What did not check out.
    """

    offset: int
    length: int
    reason: str


@dataclass(frozen=True)
class JournalRead:
    """What :func:`read_frames` found: every entry of every good frame, and the damage.

    Attributes:
        entries: The memories of the good frames, in the order written.
        damage: Bytes no copy could make good.
        spans: ``(start, end)`` of each good frame, in file order.
        expected: How many memories the journal must hold, by its ledger (``None``:
            unknown).
    """

    entries: list[JournalEntry]
    damage: list[Damage]
    spans: list[tuple[int, int]] = field(default_factory=list)
    expected: int | None = None

    @property
    def missing(self) -> int:
        """Memories the ledger counts that no copy holds (both cut or deleted): lost."""
        return 0 if self.expected is None else max(0, self.expected - len(self.entries))


def encode_frame(
    records: Sequence[MemoryRecord], seqs: Sequence[int], vectors: FloatArray
) -> bytes:
    """One journal frame holding ``records`` (with their insertion stamps) and ``vectors``."""
    matrix = np.ascontiguousarray(vectors, dtype="<f4")
    payload = json.dumps(
        {
            "ids": [r.id for r in records],
            "documents": [r.text for r in records],
            "metadatas": [to_metadata(r, s) for r, s in zip(records, seqs, strict=True)],
            "dim": int(matrix.shape[1]),
            "vectors": base64.b64encode(matrix.tobytes()).decode("ascii"),
        },
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8", "surrogatepass")
    head = struct.pack("<4sII", _MAGIC, len(payload), zlib.crc32(payload))
    return head + struct.pack("<I", zlib.crc32(head)) + payload


def _decode_payload(payload: bytes) -> list[JournalEntry]:
    """The entries of one frame's payload.

    Raises:
        ValueError: It is not what :func:`encode_frame` writes.
    """
    try:
        frame = json.loads(payload.decode("utf-8", "surrogatepass"))
        dim = int(frame["dim"])
        matrix = np.frombuffer(base64.b64decode(frame["vectors"]), dtype="<f4")
        matrix = matrix.reshape(-1, dim).astype(np.float32)
        return [
            JournalEntry(from_chroma(memory_id, doc, meta), int(meta["seq"]), matrix[i])
            for i, (memory_id, doc, meta) in enumerate(
                zip(frame["ids"], frame["documents"], frame["metadatas"], strict=True)
            )
        ]
    except (KeyError, TypeError, ValueError, StoreError) as exc:
        raise ValueError(f"payload cannot be decoded ({exc})") from exc


def _header_at(data: bytes, at: int) -> tuple[int, int, int] | None:
    """``(header size, payload size, payload crc)`` of a header that checks out at ``at``."""
    if data[at : at + 4] == _MAGIC and at + _HEADER.size <= len(data):
        _, size, crc, check = _HEADER.unpack_from(data, at)
        if zlib.crc32(data[at : at + _HEADER.size - 4]) == check:
            return _HEADER.size, size, crc
        return None
    if data[at : at + 4] == _OLD_MAGIC and at + _OLD_HEADER.size <= len(data):
        _, size, crc = _OLD_HEADER.unpack_from(data, at)
        return _OLD_HEADER.size, size, crc
    return None


def _next_header(data: bytes, start: int) -> int:
    """The offset of the next header that checks out at or after ``start`` (or the end)."""
    at = start
    while True:
        found = [i for i in (data.find(_MAGIC, at), data.find(_OLD_MAGIC, at)) if i >= 0]
        if not found:
            return len(data)
        at = min(found)
        if _header_at(data, at) is not None:
            return at
        at += 1


def read_frames(data: bytes) -> JournalRead:
    """Every good frame of ``data``, past any damage, and the damage (see the module docstring
    for how a torn tail is told from damage)."""
    entries: list[JournalEntry] = []
    damage: list[Damage] = []
    spans: list[tuple[int, int]] = []
    at = 0
    while at < len(data):
        header = _header_at(data, at)
        rest = data[at : at + 4]
        if header is None and len(data) - at < _HEADER.size and _MAGIC.startswith(rest):
            break  # a torn header: the tail of an add that never returned
        if header is None:
            nxt = _next_header(data, at + 1)
            damage.append(Damage(at, nxt - at, "not a frame header that checks out"))
            at = nxt
            continue
        head, size, crc = header
        end = at + head + size
        if end > len(data):
            nxt = _next_header(data, at + 1)
            if nxt == len(data):
                break  # a torn tail: this add never returned
            damage.append(Damage(at, nxt - at, "frame runs past the next frame"))
            at = nxt
            continue
        payload = data[at + head : end]
        if zlib.crc32(payload) != crc:
            nxt = end if head == _HEADER.size else _next_header(data, at + 1)
            damage.append(Damage(at, nxt - at, "payload checksum does not match"))
            at = nxt
            continue
        try:
            entries.extend(_decode_payload(payload))
            spans.append((at, end))
        except ValueError as exc:
            damage.append(Damage(at, end - at, f"checksum matches but {exc}"))
        at = end
    return JournalRead(entries, damage, spans)


def decode_frames(data: bytes) -> list[JournalEntry]:
    """The entries of every good frame of ``data`` (damage skipped; see :func:`read_frames`)."""
    return read_frames(data).entries


def read_pair(data: bytes, mirror: bytes | None) -> JournalRead:
    """What a journal and its mirror hold together: the entries of either copy's good frames
    (each memory once, in the order written), and the damage neither copy makes good.

    The two copies receive the same frames at the same offsets, so bytes damaged in one copy
    are made good by good frames of the other that tile the same range; damage in different
    places in the two copies loses nothing.
    """
    first = read_frames(data)
    if mirror is None:
        return first
    second = read_frames(mirror)
    seen: set[str] = set()
    entries: list[JournalEntry] = []
    for entry in sorted([*first.entries, *second.entries], key=lambda e: e.seq):
        if entry.record.id not in seen:
            seen.add(entry.record.id)
            entries.append(entry)
    damage = [d for d in first.damage if not _made_good(d, second.spans)]
    damage += [
        d
        for d in second.damage
        if not _made_good(d, first.spans) and not any(_overlap(d, o) for o in damage)
    ]
    spans = sorted(set(first.spans) | set(second.spans))
    return JournalRead(entries, sorted(damage, key=lambda d: d.offset), spans)


def _made_good(damage: Damage, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether good frames (``spans``) tile the damaged range exactly."""
    start, end = damage.offset, damage.offset + damage.length
    inside = sorted((a, b) for a, b in spans if start <= a and b <= end)
    at = start
    for a, b in inside:
        if a != at:
            return False
        at = b
    return at == end


def _overlap(a: Damage, b: Damage) -> bool:
    return a.offset < b.offset + b.length and b.offset < a.offset + a.length
