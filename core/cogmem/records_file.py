"""The bytes of a namespace's records file (``<stem>.records.pkl``): design §7.

Format 8, written now::

    b"cogmem-records\\x00\\x08" | XXH3-64 of what follows both checks (8 bytes)
        | XXH3-64 of the BM25 file (8 bytes) | the arrays (cogmem.array_frames)

The arrays are the records' columns, texts and packed ids, each its own Zstandard frame read
straight into the array kept, and ``rest``: a pickle of the few other values (format,
generation, horizon, tokenizer, vector file, namespace, the sparse extras). The check finds
damage, not tampering: XXH3 reads ~12 GB/s here against CRC-32's 2.3 and BLAKE2b's 0.9, and
the two files of a million memories (~100 MB) are checked on every open and written on every
save. Formats 7 (CRC-32 checks, then one pickle of everything compressed as one frame),
6 (a CRC-32 of the rest, the BM25 file's check in the pickle, uncompressed) and 5 (that, with
32-byte BLAKE2b digests) are still read.
"""

from __future__ import annotations

import hashlib
import pickle
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import xxhash

from .array_frames import pack_arrays, unpack_arrays
from .compression import decompress
from .errors import StoreError

__all__ = ["FORMAT", "digest", "head", "own_check", "pack_records", "read_records", "unpack_body"]

FORMAT = 8
_MAGIC = b"cogmem-records\x00\x08"


def _crc32(data: bytes | memoryview) -> bytes:
    return zlib.crc32(data).to_bytes(4, "big")


def _xxh3(data: bytes | memoryview) -> bytes:
    return xxhash.xxh3_64_digest(data)


def _blake2b(data: bytes | memoryview) -> bytes:
    return hashlib.blake2b(data, digest_size=32).digest()


# magic -> (the payload's format, the check's size in bytes, the check)
_DIGESTS: dict[bytes, tuple[int, int, Callable[[bytes | memoryview], bytes]]] = {
    _MAGIC: (FORMAT, 8, _xxh3),
    b"cogmem-records\x00\x07": (7, 4, _crc32),
    b"cogmem-records\x00\x06": (6, 4, _crc32),
    b"cogmem-records\x00\x05": (5, 32, _blake2b),
}


def digest(data: bytes | memoryview) -> bytes:
    """The check a file written now holds of ``data`` (the BM25 file's, its own)."""
    return _xxh3(data)


def pack_records(state: Mapping[str, Any], rest: Mapping[str, Any]) -> list[bytes]:
    """The pieces of a file's body: the records' ``state`` (:meth:`RecordTable.to_state`)
    and ``rest`` (plain values, pickled), compressed (the slow part: run it aside)."""
    blob, ends, hashes, table = state["id_packed"]
    rest = {**rest, "format": FORMAT, "namespace": state["namespace"], "extras": state["extras"]}
    return pack_arrays(
        {
            "rest": pickle.dumps(rest, pickle.HIGHEST_PROTOCOL),
            "id_blob": blob,
            "id_ends": ends,
            "id_hash": hashes,
            "id_table": table,
            "text": state["text"],
            # text_len is not kept: text_at gives it
            **{f"col_{k}": v for k, v in state["columns"].items() if k != "text_len"},
        }
    )


def head(body: list[bytes], bm25: bytes) -> bytes:
    """What precedes ``body`` in the file: the magic, its check and the BM25 file's."""
    check = xxhash.xxh3_64()
    for piece in body:
        check.update(piece)
    return _MAGIC + check.digest() + digest(bm25)


def own_check(raw: bytes | memoryview) -> bytes | None:
    """The check a records file of format 8 (or its :func:`head`) holds of its own body: what
    names that file (:mod:`cogmem.changes`); ``None`` for an older format."""
    at = len(_MAGIC)
    return bytes(raw[at : at + 8]) if bytes(raw[:at]) == _MAGIC else None


def unpack_body(body: bytes | memoryview) -> dict[str, Any]:
    """The payload of a body :func:`pack_records` made (checked by the caller): the rest's
    values, and ``records``, a state for :meth:`RecordTable.from_state` the caller owns."""
    arrays = unpack_arrays(body, as_bytes=("rest", "id_blob", "text"))
    payload: dict[str, Any] = pickle.loads(bytes(arrays.pop("rest")))
    payload["records"] = _state(payload, arrays)
    return payload


def read_records(path: Path, raw: bytes, bm25_path: Path, bm25: bytes) -> dict[str, Any]:
    """The payload of a records file of any format read: ``format``, ``generation``,
    ``horizon``, ``tokenizer``, ``vectors`` and ``records`` (a state for
    :meth:`RecordTable.from_state`, owned by the caller from format 8 on), once both files'
    bytes check out.

    Raises:
        StoreError: Unknown format, either file damaged, or a payload that cannot be read.
    """
    size_of_magic = len(_MAGIC)
    if raw[:size_of_magic] not in _DIGESTS:
        raise StoreError(f"{path}: unknown format")
    form, size, check = _DIGESTS[raw[:size_of_magic]]
    # Formats 7 and 8: the check of what follows both checks, the BM25 file's, the rest.
    # Before: a check of the rest.
    checked = size_of_magic + size + (size if form >= 7 else 0)
    body = memoryview(raw)[checked:]
    if raw[size_of_magic : size_of_magic + size] != check(body):
        raise StoreError(f"{path}: its checksum does not match (the file is damaged)")
    try:
        payload: dict[str, Any]
        if form >= 8:
            payload = unpack_body(body)
        elif form == 7:
            payload = pickle.loads(decompress(body))
        else:
            payload = pickle.loads(body)
        if form >= 7:
            payload["bm25_digest"] = raw[size_of_magic + size : checked]
    except Exception as exc:  # pickle raises many types on a damaged file
        raise StoreError(f"{path}: unreadable ({exc})") from exc
    if payload.get("bm25_digest") != check(bm25):
        raise StoreError(f"{bm25_path}: its checksum does not match the records'")
    if payload.get("format") != form:
        raise StoreError(f"{path}: unknown format")
    return payload


def _state(rest: Mapping[str, Any], arrays: Mapping[str, Any]) -> dict[str, Any]:
    """The records' state (:meth:`RecordTable.to_state`) from a format 8 file's pieces."""
    return {
        "namespace": rest["namespace"],
        "id_packed": tuple(arrays[f"id_{k}"] for k in ("blob", "ends", "hash", "table")),
        "text": arrays["text"],
        "columns": {k[4:]: v for k, v in arrays.items() if k.startswith("col_")},
        "extras": rest["extras"],
    }
