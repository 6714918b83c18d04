"""Postings storage for the BM25 index: the packed posting record, CSR helpers, string
packing, and the argument checks of the index's calls.

A posting is a document's slot and its term frequency, packed in 5 bytes (``int32`` slot,
``uint8`` tf; a tf of 255 or more is stored as 255 and kept exactly beside). Postings are grouped
by term in CSR form: term ``t`` owns ``rows[ptr[t]:ptr[t + 1]]``, slots ascending.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from cogmem.errors import InvalidTypeError
from cogmem.idmap import IdMap

__all__ = [
    "POSTING",
    "TF_CAP",
    "Compacted",
    "check_query",
    "check_tokens",
    "count_tokens",
    "destinations",
    "id_hash",
    "merge_csr",
    "raw",
    "reserve",
    "stable_argsort",
    "unpack_strings",
]

I32 = npt.NDArray[np.int32]
Rows = npt.NDArray[np.void]  # postings rows of POSTING

# A posting: its document's slot and its term frequency, packed (5 bytes). A tf of TF_CAP or
# more is stored as TF_CAP, and exactly in BM25Index._big (so every tf is exact).
POSTING = np.dtype([("slot", np.int32), ("tf", np.uint8)])
TF_CAP = 255
# Postings are moved as opaque 5-byte items: numpy copies a packed record dtype field by field,
# some 30 times slower than these.
_RAW = np.dtype(("V", POSTING.itemsize))


def raw(rows: Rows) -> npt.NDArray[np.void]:
    """``rows`` viewed as opaque items, for fast copies."""
    return rows.view(_RAW)


I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]


class Compacted(NamedTuple):
    """A whole index state with no dead slots and no unused terms: ids and lengths by slot,
    the vocabulary, the postings (CSR: ``rows``, ``ptr``) and the exact tfs of 255 or more."""

    ids: IdMap
    dl: I32
    vocab: IdMap
    rows: Rows
    ptr: I64
    big: dict[int, dict[int, int]]


def check_tokens(tokens: object, name: str) -> Sequence[str]:
    if isinstance(tokens, (str, bytes, bytearray)) or not isinstance(tokens, Sequence):
        raise InvalidTypeError(
            f"{name} must be a sequence of str tokens (e.g. a list), got {type(tokens).__name__}"
        )
    return tokens


def count_tokens(tokens: object, name: str) -> tuple[int, Counter[str]]:
    seq = check_tokens(tokens, name)
    try:
        counts: Counter[str] = Counter(seq)
    except TypeError as exc:  # an unhashable token
        raise InvalidTypeError(f"{name} must contain str tokens: {exc}") from exc
    return len(seq), counts


def check_query(tokens: object) -> Sequence[str]:
    seq = check_tokens(tokens, "query_tokens")
    for token in seq:
        if not isinstance(token, str):
            raise InvalidTypeError(
                f"query_tokens must contain str tokens, got {type(token).__name__}"
            )
    return seq


def id_hash(doc_id: str) -> int:
    digest = hashlib.blake2b(doc_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def reserve(holder: dict[str, Any], name: str, needed: int) -> None:
    """Give the array ``holder[name]`` room for at least ``needed`` rows (new rows are zero).

    Capacity grows by a quarter (amortised O(1) per row, at most 25% unused). The array is
    grown in place with ``ndarray.resize``, a ``realloc``: a large array's pages are remapped,
    not copied, so old and new copies never coexist. Only when something else references the
    array (a view) is it copied instead. ``holder`` is the dict holding it (an object's
    ``vars()``): ``resize`` refuses an array with references beyond the holder's.
    """
    rows = holder[name].shape[0]
    if needed <= rows:
        return
    shape = (max(needed, rows + rows // 4, 16), *holder[name].shape[1:])
    try:
        holder[name].resize(shape, refcheck=True)
    except ValueError:  # a view of it exists: copy
        old = holder[name]
        grown = np.zeros(shape, dtype=old.dtype)
        grown[:rows] = old
        holder[name] = grown


def destinations(ptr: I64, offset: I64, lo: int, hi: int) -> I64:
    """Where rows ``lo:hi`` of a CSR go when row ``i`` of group ``t`` (the rows
    ``ptr[t]:ptr[t + 1]``) moves to ``i + offset[t]``; O((hi - lo) · log groups)."""
    at = np.arange(lo, hi, dtype=np.int64)
    at += offset[np.searchsorted(ptr, at, side="right") - 1]
    return at


_BLOCK_MERGE_TERMS = 64  # merge_csr copies blocks when at most this many terms get rows


def merge_csr(rows: Rows, ptr: I64, extra: Rows, counts: I64) -> tuple[Rows, I64]:
    """The CSR ``(rows, ptr)`` with ``extra`` appended to each term's rows (a new array).

    Args:
        rows: Postings grouped by term; term ``t`` owns ``rows[ptr[t]:ptr[t + 1]]``.
        ptr: Row pointer, one more than there are terms.
        extra: Rows to add, grouped by term in term order: ``counts[t]`` of them for term ``t``.
        counts: Rows of ``extra`` per term (as long as ``ptr`` minus one).

    Returns:
        The merged rows and their pointer; O(rows + extra + terms). When few terms get rows
        (a document or a few), the held rows move as blocks (one copy per such term);
        otherwise by one scatter, with an ``int64`` destination array as long as ``rows``
        meanwhile (kept short: this is the tail).
    """
    held = np.diff(ptr)
    merged_ptr = np.zeros_like(ptr)
    np.cumsum(held + counts, out=merged_ptr[1:])
    out = np.empty(int(merged_ptr[-1]), dtype=POSTING)
    merged, rows, extra = raw(out), raw(rows), raw(extra)
    touched = np.flatnonzero(counts)
    if touched.shape[0] <= _BLOCK_MERGE_TERMS:
        done = taken = 0  # rows of `rows` and of `extra` copied so far
        for count, end in zip(counts[touched].tolist(), ptr[touched + 1].tolist(), strict=True):
            pos = done + taken
            merged[pos : pos + end - done] = rows[done:end]
            pos += end - done
            merged[pos : pos + count] = extra[taken : taken + count]
            done, taken = end, taken + count
        merged[done + taken :] = rows[done:]
        return out, merged_ptr
    if rows.shape[0]:
        # Row i of term t moves up by the extra rows of the terms before t.
        at = np.repeat(merged_ptr[:-1] - ptr[:-1], held)
        at += np.arange(rows.shape[0])
        merged[at] = rows
        del at
    if extra.shape[0]:
        # Extra row k of term t lands after t's held rows.
        at = np.repeat(merged_ptr[:-1] + held - (np.cumsum(counts) - counts), counts)
        at += np.arange(extra.shape[0])
        merged[at] = extra
    return out, merged_ptr


def stable_argsort(keys: npt.NDArray[Any]) -> I64:
    """Stable argsort of non-negative int32 keys by LSD radix passes on 16-bit digits.

    numpy sorts 16-bit keys stably with a radix sort, several times faster than its timsort
    on 32-bit keys.
    """
    low = (keys & 0xFFFF).astype(np.uint16)
    order: I64 = np.argsort(low, kind="stable")
    high = (keys >> 16).astype(np.uint16)
    if high.any():
        order = order[np.argsort(high[order], kind="stable")]
    return order


def unpack_strings(blob: npt.NDArray[Any], lengths: npt.NDArray[Any]) -> list[str]:
    text = blob.tobytes().decode("utf-8", "surrogatepass")
    if lengths.shape[0] and int(lengths.min()) < 0:
        raise ValueError("negative string length")
    ends = np.cumsum(lengths).tolist()
    if (ends[-1] if ends else 0) != len(text):
        raise ValueError("string lengths do not match the string data")
    starts = [0, *ends[:-1]] if ends else []
    return [text[a:b] for a, b in zip(starts, ends, strict=True)]
