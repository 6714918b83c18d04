"""Named arrays as one Zstandard frame each: the body of the derived index's files (design §7).

A namespace's records and BM25 files hold a few large arrays (texts, ids, columns, postings).
Written as one pickle or ``.npz`` compressed whole, they were read back through three copies
(the decompressed stream, the pickle's or the archive's objects, the owner's own arrays); at a
million memories that took longer than Chroma's own load beside it. Here each array is its own
frame, which states its size and carries Zstandard's checksum of what it holds, and is
decompressed straight into the array (or ``bytearray``) its reader keeps::

    directory length: u32 LE | directory: JSON [[name, dtype, shape, frame length], ...]
    | the frames, in the directory's order

The caller checks the file's bytes as a whole before it reads them (a CRC of its own), so
nothing damaged reaches this module unseen; whatever does not decompress whole and exactly to
the size the directory states raises :class:`~cogmem.compression.CompressionError`.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import zstandard

from .compression import CompressionError

__all__ = ["ArrayLike", "pack_arrays", "unpack_arrays"]

ArrayLike = npt.NDArray[Any] | bytes | bytearray
"""What a file holds under one name: an array of a plain dtype, or bytes."""

_LENGTH = struct.Struct("<I")
_LEVEL = 1
_BYTES = "bytes"  # the dtype of a name held as bytes (read back as a bytearray)


def pack_arrays(arrays: Mapping[str, ArrayLike]) -> list[bytes]:
    """The pieces to write, in order, for ``arrays``: the directory, then a frame per array.

    Args:
        arrays: Name -> a C-contiguous array of a plain dtype (not structured: view it as
            bytes), or bytes.
    """
    compressor = zstandard.ZstdCompressor(level=_LEVEL, write_checksum=True)
    entries: list[list[Any]] = []
    frames: list[bytes] = []
    for name, value in arrays.items():
        if isinstance(value, (bytes, bytearray)):
            kind, shape, data = _BYTES, [len(value)], memoryview(value)
        else:
            array = np.ascontiguousarray(value)
            if array.dtype.fields is not None or array.dtype.hasobject:
                raise ValueError(f"array {name!r}: a plain dtype is needed, not {array.dtype}")
            kind, shape = array.dtype.str, list(array.shape)
            data = array.data.cast("B") if array.size else memoryview(b"")
        frames.append(compressor.compress(data))
        entries.append([name, kind, shape, len(frames[-1])])
    directory = json.dumps(entries, separators=(",", ":")).encode("utf-8")
    return [_LENGTH.pack(len(directory)), directory, *frames]


def unpack_arrays(
    data: bytes | memoryview, *, as_bytes: Collection[str] = ()
) -> dict[str, ArrayLike]:
    """Read what :func:`pack_arrays` wrote (after the caller checked its bytes).

    Args:
        data: The pieces, back to back.
        as_bytes: Names to return as a ``bytearray`` (held as bytes when written).

    Returns:
        Name -> a writable array of the dtype and shape written, or a ``bytearray``.

    Raises:
        CompressionError: Anything is not as the directory states.
    """
    view = memoryview(data)
    try:
        (length,) = _LENGTH.unpack_from(view, 0)
        at = _LENGTH.size + length
        entries = json.loads(bytes(view[_LENGTH.size : at]).decode("utf-8"))
        if not isinstance(entries, list):
            raise ValueError("the directory is not a list")
        out: dict[str, ArrayLike] = {}
        for name, kind, shape, size in entries:
            frame = view[at : at + int(size)]
            at += int(size)
            if len(frame) != size:
                raise ValueError(f"the frame of {name!r} is cut short")
            if kind == _BYTES:
                if name not in as_bytes:
                    raise ValueError(f"{name!r} holds bytes")
                held = bytearray(int(shape[0]))
                _decompress_into(frame, memoryview(held))
                target: ArrayLike = held
            else:
                array = np.empty(tuple(int(s) for s in shape), dtype=np.dtype(str(kind)))
                if array.dtype.hasobject or array.dtype.fields is not None:
                    raise ValueError(f"{name!r} has dtype {array.dtype}")
                _decompress_into(frame, array.data.cast("B") if array.size else None)
                target = array
            out[str(name)] = target
        if at != len(view):
            raise ValueError("bytes follow the last frame")
    except CompressionError:
        raise
    except Exception as exc:  # a damaged directory fails in many ways (numpy's dtype parser too)
        raise CompressionError(f"{type(exc).__name__}: {exc}") from exc
    return out


def _decompress_into(frame: memoryview, target: memoryview | None) -> None:
    """Fill ``target`` (``None``: nothing) with the one frame ``frame`` holds, all of it.

    Raises:
        CompressionError: The frame holds more or less, is damaged or fails its checksum.
    """
    size = 0 if target is None else target.nbytes
    if zstandard.frame_content_size(frame) != size:
        raise CompressionError("a frame does not hold the size its directory states")
    reader = zstandard.ZstdDecompressor().stream_reader(frame, read_size=1 << 20)
    filled = 0
    while target is not None and filled < size:
        got = reader.readinto(target[filled:])
        if not got:
            raise CompressionError("a frame holds less than it states")
        filled += got
    if reader.read(1):  # reading to the frame's end checks its checksum
        raise CompressionError("a frame holds more than it states")
