"""Lexical recall: a tokenizer and an incremental BM25 (Okapi) index.

Tokenizing and scoring are kept apart, as in ``rank_bm25`` and ``bm25s``: a :class:`Tokenizer`
turns text into tokens, and a :class:`BM25Index` scores already-tokenized documents.

Scoring
-------
For a query ``Q`` (a list of tokens, repeats allowed) and a document ``D``::

    score(D, Q) = Σ_{q ∈ Q} idf(q) · f(q, D) · (k1 + 1) / (f(q, D) + k1 · (1 - b + b · |D| / avgdl))

    idf(q)      = ln(N - n(q) + 0.5) - ln(n(q) + 0.5)
                  replaced by ε · mean_idf when negative (term in more than half the documents)

where ``f(q, D)`` is how many times ``q`` occurs in ``D`` (a count), ``|D|`` is the length of
``D`` in tokens, ``avgdl`` is the mean document length in tokens over the ``N`` live documents
(documents with no tokens count in ``N``), ``n(q)`` is the number of live documents containing
``q``, and ``mean_idf`` is the mean of the *raw* idf over every term of the live corpus. The sum
runs over query occurrences, so a query term given twice counts twice; unknown terms add 0.
Scores are unitless, and negative when ``mean_idf`` is negative (tiny corpora).

This is exactly ``rank_bm25.BM25Okapi(corpus, k1=k1, b=b, epsilon=ε).get_scores(query)`` on the
live documents: the per-posting arithmetic is done in the same order, so scores agree bit for bit
except for the rounding of ``mean_idf`` (summed by numpy rather than in a Python loop). Two
rank_bm25 details are kept on purpose: an idf of exactly 0 (``n(q) = N / 2``) is not floored, and
the floor can be negative. One is not: where rank_bm25 computes ``0 / 0 = NaN`` for a document
lacking a query term (``k1 = 0``, or ``b = 1`` and an empty document), that term adds 0 here.
A document *matches* when it holds at least one query term, whatever its score.

Costs
-----
``add`` and ``remove`` cost O(tokens of the document), amortised. Postings are packed 5-byte
``(slot, tf)`` records (``int32`` slot, ``uint8`` tf; a tf of 255 or more is kept exactly in a
dict beside) sorted by (term, slot) in two exactly sized CSR levels: a *base* and a *tail*
holding what was added since the last merge. A batch of additions rebuilds the tail in
O(tail + batch + vocabulary); the tail is merged into the base, in place, when it outgrows a
sixteenth of it (O(postings), amortised over the postings that made it grow). Per-document arrays
grow by a quarter in place (``realloc``). ``remove`` leaves a tombstone (document frequency and
total length are adjusted at once, dead postings are skipped when queried). There is no forward
index: ``remove`` checks the document's terms in their postings, O(its terms · log postings),
when given the tokens it was indexed with, and otherwise scans the postings, O(postings), once
per :meth:`~BM25Index.remove_many` call. When dead slots
exceed a quarter of all slots the index compacts itself in O(postings), amortised over the
removals that caused it. A query costs O(postings of its terms) (a dense scratch array is used
only when the postings number at least an eighth of the slots); ``mean_idf`` is recomputed
lazily, at the first query after a write, in O(vocabulary) numpy work.

Memory: 5 bytes per posting; per document an ``int32`` length, a flag and its id in an
:class:`~cogmem.idmap.IdMap` (its UTF-8 bytes and ~20 bytes); per term 24 bytes of arrays and
its entry in the vocabulary's IdMap. No Python object per posting, document or term. For 100k
documents of 16.5 tokens (15.3 unique, 27k terms): 8.9 MB of arrays (5.8 bytes per posting)
and 19 MB of RSS in all, ids and vocabulary included. Transient memory: the tail's old and new
copies while a batch is added (up to a sixteenth of the postings each); merges place 32k rows
at a time.

Persistence
-----------
:meth:`BM25Index.save` writes an uncompressed ``.npz`` (format version, parameters, ids,
vocabulary and the compacted postings) atomically; :meth:`BM25Index.load` validates it and raises
:class:`~cogmem.errors.StoreError` on anything it cannot trust, so the caller can rebuild.
:meth:`BM25Index.fingerprint` (count and XOR of 64-bit BLAKE2b hashes of the ids) lets the caller
check cheaply whether the index holds exactly a given set of ids.

Thread-safety
-------------
Neither class is thread-safe. The caller serialises access to a :class:`BM25Index` (one lock
around every call, reads included: queries refresh cached statistics). A :class:`Tokenizer`
holds a stemmer with an internal cache; give each thread its own (they pickle cheaply).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt
import Stemmer

from cogmem.errors import (
    DuplicateIdError,
    InvalidInputError,
    InvalidTypeError,
    MemoryNotFoundError,
    StoreError,
)
from cogmem.idmap import IdMap

__all__ = [
    "INDEX_FORMAT_VERSION",
    "STOPWORDS_EN",
    "BM25Index",
    "Tokenizer",
    "word_spans",
]

STOPWORDS_EN: frozenset[str] = frozenset(
    {
        "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
        "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself",
        "it", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which",
        "who", "whom", "this", "that", "these", "those", "am", "is", "are", "was", "were", "be",
        "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "a", "an",
        "the", "and", "but", "if", "or", "because", "as", "until", "while", "of", "at", "by",
        "for", "with", "about", "against", "between", "into", "through", "during", "before",
        "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over",
        "under", "again", "further", "then", "once", "here", "there", "when", "where", "why",
        "how", "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no",
        "nor", "not", "only", "own", "same", "so", "than", "too", "very", "s", "t", "can", "will",
        "just", "don", "should", "now", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren",
        "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "ma", "mightn", "mustn",
        "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn",
    }
)  # fmt: skip
"""English stop words: NLTK's English list (its 153 plain words; data only), as ``bm25s`` ships for
``"en"`` in its fuller list. Removed before stemming."""

INDEX_FORMAT_VERSION = 2
"""Version of the file format written by :meth:`BM25Index.save`."""

_MAGIC = b"cogmem-bm25"
_WORD_RE = re.compile(r"\w+")

I32 = npt.NDArray[np.int32]
Rows = npt.NDArray[np.void]  # postings rows of _POSTING

# A posting: its document's slot and its term frequency, packed (5 bytes). A tf of _TF_CAP or
# more is stored as _TF_CAP, and exactly in BM25Index._big (so every tf is exact).
_POSTING = np.dtype([("slot", np.int32), ("tf", np.uint8)])
_TF_CAP = 255
# Postings are moved as opaque 5-byte items: numpy copies a packed record dtype field by field,
# some 30 times slower than these.
_RAW = np.dtype(("V", _POSTING.itemsize))


def _raw(rows: Rows) -> npt.NDArray[np.void]:
    """``rows`` viewed as opaque items, for fast copies."""
    return rows.view(_RAW)


I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]


# --------------------------------------------------------------------------------------------
# Tokenizer


class Tokenizer:
    """Text to BM25 tokens: lowercase, ``\\w+`` words, stop words dropped, Snowball stems.

    Token order and repeats are kept (BM25 counts them). Stop words are compared with the
    lowercased word before stemming.

    Args:
        language: A Snowball algorithm name known to PyStemmer, e.g. ``"english"``.
        stopwords: Words to drop (compared lowercased); ``None`` drops nothing.
        stem: Whether to stem the words.

    Raises:
        InvalidTypeError: An argument has the wrong type.
        InvalidInputError: ``language`` is not a PyStemmer algorithm.

    Example:
        >>> Tokenizer()("The runner was running, and runs!")
        ['runner', 'run', 'run']
    """

    __slots__ = ("_language", "_stem", "_stemmer", "_stopwords")

    def __init__(
        self,
        language: str = "english",
        stopwords: Iterable[str] | None = STOPWORDS_EN,
        stem: bool = True,
    ) -> None:
        if not isinstance(language, str):
            raise InvalidTypeError(f"language must be a str, got {type(language).__name__}")
        if not isinstance(stem, bool):
            raise InvalidTypeError(f"stem must be a bool, got {type(stem).__name__}")
        if language not in Stemmer.algorithms():
            raise InvalidInputError(
                f"language {language!r} is not a PyStemmer algorithm; "
                f"choose one of {sorted(Stemmer.algorithms())}"
            )
        if stopwords is None:
            words: frozenset[str] = frozenset()
        elif isinstance(stopwords, str) or not isinstance(stopwords, Iterable):
            raise InvalidTypeError(
                f"stopwords must be an iterable of str or None, got {type(stopwords).__name__}"
            )
        else:
            items = list(stopwords)
            for word in items:
                if not isinstance(word, str):
                    raise InvalidTypeError(f"stopwords must contain str, got {type(word).__name__}")
            words = frozenset(word.lower() for word in items)
        self._language = language
        self._stopwords = words
        self._stem = stem
        self._stemmer: Any = Stemmer.Stemmer(language) if stem else None

    @property
    def language(self) -> str:
        """The Snowball algorithm name."""
        return self._language

    @property
    def stopwords(self) -> frozenset[str]:
        """The (lowercased) stop words."""
        return self._stopwords

    @property
    def stem(self) -> bool:
        """Whether words are stemmed."""
        return self._stem

    def __call__(self, text: str) -> list[str]:
        """Tokenize one text.

        Args:
            text: Any text.

        Returns:
            The tokens, in order, repeats kept.

        Raises:
            InvalidTypeError: ``text`` is not a str.
        """
        if not isinstance(text, str):
            raise InvalidTypeError(f"text must be a str, got {type(text).__name__}")
        words = _WORD_RE.findall(text.lower())
        if self._stopwords:
            stop = self._stopwords
            words = [word for word in words if word not in stop]
        if self._stemmer is not None and words:
            stemmed: list[str] = self._stemmer.stemWords(words)
            return stemmed
        return words

    def stems(self, words: Sequence[str]) -> list[str]:
        """The stems of ``words`` (lowercased first; no stop word is dropped).

        Example:
            >>> Tokenizer().stems(["Lives", "lived", "living"])
            ['live', 'live', 'live']
        """
        lowered = [word.lower() for word in words]
        if self._stemmer is None or not lowered:
            return lowered
        stemmed: list[str] = self._stemmer.stemWords(lowered)
        return stemmed

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Tokenize several texts.

        Args:
            texts: The texts.

        Returns:
            One token list per text, in order.

        Raises:
            InvalidTypeError: ``texts`` is a str, or an item is not a str.
        """
        if isinstance(texts, str) or not isinstance(texts, Iterable):
            raise InvalidTypeError(f"texts must be an iterable of str, got {type(texts).__name__}")
        return [self(text) for text in texts]

    def __reduce__(self) -> tuple[Any, ...]:
        # The PyStemmer object cannot be pickled; rebuild from the settings instead.
        return (Tokenizer, (self._language, self._stopwords, self._stem))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tokenizer):
            return NotImplemented
        return (self._language, self._stopwords, self._stem) == (
            other._language,
            other._stopwords,
            other._stem,
        )

    def __hash__(self) -> int:
        return hash((self._language, self._stopwords, self._stem))

    def __repr__(self) -> str:
        return (
            f"Tokenizer(language={self._language!r}, stopwords=<{len(self._stopwords)} words>, "
            f"stem={self._stem})"
        )


def word_spans(text: str) -> list[tuple[str, int]]:
    """The words :class:`Tokenizer` splits ``text`` into (``\\w+``), case kept, each with the
    offset it starts at.

    Example:
        >>> word_spans("Note: Maria's flight")
        [('Note', 0), ('Maria', 6), ('s', 12), ('flight', 14)]
    """
    return [(m.group(), m.start()) for m in _WORD_RE.finditer(text)]


# --------------------------------------------------------------------------------------------
# Validation helpers


def _check_real(value: object, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTypeError(f"{name} must be a real number, got {type(value).__name__}")
    number = float(value)
    if not (math.isfinite(number) and low <= number <= high):
        raise InvalidInputError(f"{name} must be finite and within [{low}, {high}], got {value!r}")
    return number


def _check_id(doc_id: object, name: str = "doc_id") -> str:
    if not isinstance(doc_id, str):
        raise InvalidTypeError(f"{name} must be a str, got {type(doc_id).__name__}")
    if not doc_id:
        raise InvalidInputError(f"{name} must not be empty")
    return doc_id


def _check_tokens(tokens: object, name: str) -> Sequence[str]:
    if isinstance(tokens, (str, bytes, bytearray)) or not isinstance(tokens, Sequence):
        raise InvalidTypeError(
            f"{name} must be a sequence of str tokens (e.g. a list), got {type(tokens).__name__}"
        )
    return tokens


def _count_tokens(tokens: object, name: str) -> tuple[int, Counter[str]]:
    seq = _check_tokens(tokens, name)
    try:
        counts: Counter[str] = Counter(seq)
    except TypeError as exc:  # an unhashable token
        raise InvalidTypeError(f"{name} must contain str tokens: {exc}") from exc
    return len(seq), counts


def _check_query(tokens: object) -> Sequence[str]:
    seq = _check_tokens(tokens, "query_tokens")
    for token in seq:
        if not isinstance(token, str):
            raise InvalidTypeError(
                f"query_tokens must contain str tokens, got {type(token).__name__}"
            )
    return seq


def _check_count(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise InvalidInputError(f"{name} must be >= {minimum}, got {value}")
    return value


def _id_hash(doc_id: str) -> int:
    digest = hashlib.blake2b(doc_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def _reserve(holder: dict[str, Any], name: str, needed: int) -> None:
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


def _destinations(ptr: I64, offset: I64, lo: int, hi: int) -> I64:
    """Where rows ``lo:hi`` of a CSR go when row ``i`` of group ``t`` (the rows
    ``ptr[t]:ptr[t + 1]``) moves to ``i + offset[t]``; O((hi - lo) · log groups)."""
    at = np.arange(lo, hi, dtype=np.int64)
    at += offset[np.searchsorted(ptr, at, side="right") - 1]
    return at


_BLOCK_MERGE_TERMS = 64  # _merge_csr copies blocks when at most this many terms get rows


def _merge_csr(rows: Rows, ptr: I64, extra: Rows, counts: I64) -> tuple[Rows, I64]:
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
    out = np.empty(int(merged_ptr[-1]), dtype=_POSTING)
    merged, rows, extra = _raw(out), _raw(rows), _raw(extra)
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


def _stable_argsort(keys: npt.NDArray[Any]) -> I64:
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


def _pack_strings(strings: list[str]) -> tuple[npt.NDArray[np.uint8], I64]:
    text = "".join(strings)
    blob = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    return blob, lengths


def _unpack_strings(blob: npt.NDArray[Any], lengths: npt.NDArray[Any]) -> list[str]:
    text = blob.tobytes().decode("utf-8", "surrogatepass")
    if lengths.shape[0] and int(lengths.min()) < 0:
        raise ValueError("negative string length")
    ends = np.cumsum(lengths).tolist()
    if (ends[-1] if ends else 0) != len(text):
        raise ValueError("string lengths do not match the string data")
    starts = [0, *ends[:-1]] if ends else []
    return [text[a:b] for a, b in zip(starts, ends, strict=True)]


# --------------------------------------------------------------------------------------------
# BM25 index


class BM25Index:
    """An incremental BM25 (Okapi) index over tokenized documents keyed by string ids.

    Scores equal ``rank_bm25.BM25Okapi`` built on the live documents (see the module docstring).
    Not thread-safe: the caller holds a lock around every call.

    Args:
        k1: Term-frequency saturation, ``0 <= k1 <= 1000``.
        b: Length normalisation, ``0 <= b <= 1``.
        epsilon: Floor factor for negative idfs (``ε · mean_idf``), ``0 <= epsilon <= 1000``.

    Raises:
        InvalidTypeError: A parameter is not a real number.
        InvalidInputError: A parameter is out of range or not finite.
    """

    _COMPACT_MIN_DEAD = 16
    # The tail is merged into the base when it holds more than this many rows and more than
    # a sixteenth of the base's (merges cost O(postings), so they are amortised over that many).
    _MERGE_MIN = 1 << 14
    _MOVE_CHUNK = 1 << 15  # rows moved at a time by merges (their extra memory: ~1 MiB)

    def __init__(self, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25) -> None:
        self._k1 = _check_real(k1, "k1", 0.0, 1000.0)
        self._b = _check_real(b, "b", 0.0, 1.0)
        self._epsilon = _check_real(epsilon, "epsilon", 0.0, 1000.0)
        self._reset()

    # -- state ---------------------------------------------------------------------------------

    def _reset(self) -> None:
        # Documents, by slot (insertion order).
        # Ids by slot. Only appended to between compactions, which install a new map (ranked()
        # snapshots rely on it); a removed document's slot still names it.
        self._ids = IdMap()
        self._alive: Bool = np.zeros(0, dtype=np.bool_)
        self._dl: I32 = np.zeros(0, dtype=np.int32)
        self._nslots = 0
        self._ndead = 0
        self._total = 0  # tokens in live documents
        self._xor = 0
        # Inverted index: postings in two CSR levels, each sorted by (term, slot). The
        # base holds everything up to the last merge, the tail what was added since (slots
        # above the base's), so term t's postings are _base[_bptr[t]:_bptr[t + 1]] followed by
        # _tail[_tptr[t]:_tptr[t + 1]]. Both are exactly sized (_bptr, _tptr: terms + 1).
        self._vocab = IdMap()  # term -> term id (never removed from between compactions)
        self._base: Rows = np.zeros(0, dtype=_POSTING)
        self._bptr: I64 = np.zeros(1, dtype=np.int64)
        self._tail: Rows = np.zeros(0, dtype=_POSTING)
        self._tptr: I64 = np.zeros(1, dtype=np.int64)
        self._big: dict[int, dict[int, int]] = {}  # term id -> slot -> tf, for tf >= _TF_CAP
        self._df: I64 = np.zeros(0, dtype=np.int64)  # live document frequency
        self._stats_cache: tuple[int, float, float] | None = None

    # -- properties ----------------------------------------------------------------------------

    @property
    def k1(self) -> float:
        """Term-frequency saturation parameter."""
        return self._k1

    @property
    def b(self) -> float:
        """Length-normalisation parameter."""
        return self._b

    @property
    def epsilon(self) -> float:
        """Floor factor applied to the mean idf for negative idfs."""
        return self._epsilon

    @property
    def avgdl(self) -> float:
        """Mean live document length in tokens (0.0 when empty)."""
        return self._total / len(self._ids) if len(self._ids) else 0.0

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._ids

    def ids(self) -> set[str]:
        """The ids of the live documents (a new set)."""
        return set(self._ids.keys())

    def __repr__(self) -> str:
        return (
            f"BM25Index(k1={self._k1}, b={self._b}, epsilon={self._epsilon}, "
            f"documents={len(self)}, terms={int(np.count_nonzero(self._df))})"
        )

    # -- writes --------------------------------------------------------------------------------

    def add(self, doc_id: str, tokens: Sequence[str]) -> None:
        """Index one document; O(its tokens), amortised.

        Args:
            doc_id: Its id (non-empty str, not already indexed).
            tokens: Its tokens (e.g. from :class:`Tokenizer`); may be empty.

        Raises:
            DuplicateIdError: ``doc_id`` is already indexed (an :class:`InvalidInputError`);
                the index is unchanged.
            InvalidTypeError: Wrong argument types; the index is unchanged.
        """
        _check_id(doc_id)
        length, counts = _count_tokens(tokens, "tokens")
        for token in counts:
            if not isinstance(token, str):
                raise InvalidTypeError(f"tokens must contain str, got {type(token).__name__}")
        if doc_id in self._ids:
            raise DuplicateIdError(f"document {doc_id!r} is already indexed; remove it first")

        self._append([doc_id], [length], [counts])

    def add_many(self, items: Iterable[tuple[str, Sequence[str]]]) -> int:
        """Index several documents at once (all or nothing).

        Faster per document than :meth:`add` for large batches: postings are grouped per term,
        so the Python work per term is paid once per batch instead of once per document.

        Args:
            items: ``(doc_id, tokens)`` pairs.

        Returns:
            How many documents were added.

        Raises:
            DuplicateIdError: An id is already indexed or repeated in ``items``; nothing added.
            InvalidTypeError: Wrong item types; nothing is added.
        """
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise InvalidTypeError(
                f"items must be an iterable of (doc_id, tokens), got {type(items).__name__}"
            )
        ids: list[str] = []
        lengths: list[int] = []
        counters: list[Counter[str]] = []
        seen: set[str] = set()
        for item in items:
            if not isinstance(item, tuple) or len(item) != 2:
                raise InvalidTypeError("items must contain (doc_id, tokens) tuples")
            doc_id = _check_id(item[0])
            length, counts = _count_tokens(item[1], "tokens")
            if doc_id in self._ids or doc_id in seen:
                raise DuplicateIdError(f"document {doc_id!r} is already indexed or repeated")
            seen.add(doc_id)
            ids.append(doc_id)
            lengths.append(length)
            counters.append(counts)
        if ids:
            self._append(ids, lengths, counters)
        return len(ids)

    def _add_terms(self, old_terms: int) -> None:
        """Make room for the terms the vocabulary gained since it had ``old_terms``."""
        new_terms = len(self._vocab)
        if new_terms > old_terms:
            _reserve(vars(self), "_df", new_terms)
            # New terms have no postings yet: their pointers repeat the last one.
            more = new_terms - old_terms
            self._bptr = np.concatenate((self._bptr, np.repeat(self._bptr[-1:], more)))
            self._tptr = np.concatenate((self._tptr, np.repeat(self._tptr[-1:], more)))

    def _reserve_slots(self, end: int) -> None:
        arrays = vars(self)
        _reserve(arrays, "_alive", end)
        _reserve(arrays, "_dl", end)

    def _append(self, ids: list[str], lengths: list[int], counters: list[Counter[str]]) -> None:
        """Add new documents in bulk; checks the token types, then mutates (all or nothing)."""
        count = len(ids)
        first = self._nslots
        end = first + count
        terms: list[str] = []
        tfs: list[int] = []
        uniques: list[int] = []
        for counts in counters:
            terms.extend(counts.keys())
            tfs.extend(counts.values())
            uniques.append(len(counts))
        # Term ids, looked up once per distinct term of the batch; new terms get the next ids.
        # Only new terms can be non-str: they are checked before anything changes.
        vocab = self._vocab
        old_terms = len(vocab)
        tid_of: dict[str, int] = {}
        new_terms: list[str] = []
        for term in dict.fromkeys(terms):
            tid = vocab.get(term)
            if tid is None:
                if not isinstance(term, str):
                    raise InvalidTypeError(f"tokens must contain str, got {type(term).__name__}")
                tid = old_terms + len(new_terms)
                new_terms.append(term)
            tid_of[term] = tid
        vocab.extend(new_terms)
        self._add_terms(old_terms)
        postings = len(terms)
        tids: I32 = np.fromiter(map(tid_of.__getitem__, terms), dtype=np.int32, count=postings)
        del tid_of

        self._reserve_slots(end)
        self._alive[first:end] = True
        self._dl[first:end] = lengths

        if postings:
            order = _stable_argsort(tids)  # stable: slots stay ascending within a term
            sorted_tids = tids[order]
            rows = np.empty(postings, dtype=_POSTING)
            rows["slot"] = np.repeat(np.arange(first, end, dtype=np.int32), uniques)[order]
            exact = np.fromiter(tfs, dtype=np.int64, count=postings)[order]
            rows["tf"] = np.minimum(exact, _TF_CAP)
            for at in np.flatnonzero(exact >= _TF_CAP).tolist():
                big = self._big.setdefault(int(sorted_tids[at]), {})
                big[int(rows["slot"][at])] = int(exact[at])
            del order, exact
            per_term = np.bincount(sorted_tids, minlength=len(vocab))
            self._df[: len(vocab)] += per_term
            self._tail, self._tptr = _merge_csr(self._tail, self._tptr, rows, per_term)
            if self._tail.shape[0] > max(self._MERGE_MIN, self._base.shape[0] // 16):
                self._merge_tail()

        self._ids.extend(ids)
        self._nslots = end
        self._total += sum(lengths)
        xor = self._xor
        for doc_id in ids:
            xor ^= _id_hash(doc_id)
        self._xor = xor
        self._stats_cache = None

    def _merge_tail(self) -> None:
        """Move the tail's postings into the base, in place; O(postings).

        The base is grown with ``ndarray.resize`` (no second copy of it), then its rows are
        moved up from the last to the first in chunks of ``_MOVE_CHUNK``, each to its final
        place: row ``i`` of term ``t`` moves up by ``_tptr[t]`` (the tail rows of the terms
        before ``t``), and tail row ``j`` of term ``t`` lands at ``_bptr[t + 1] + j``. A row
        only moves to a higher index, so the rows below the chunk being moved are still
        unread. Extra memory: one chunk.
        """
        tail, tptr, bptr = self._tail, self._tptr, self._bptr
        count, added = self._base.shape[0], tail.shape[0]
        if not added:
            return
        try:
            self._base.resize(count + added, refcheck=True)
        except ValueError:  # a view of it exists: copy
            grown = np.empty(count + added, dtype=_POSTING)
            _raw(grown)[:count] = _raw(self._base)
            self._base = grown
        base, moved, chunk = _raw(self._base), _raw(tail), self._MOVE_CHUNK
        for lo in reversed(range(0, count, chunk)):
            hi = min(lo + chunk, count)
            base[_destinations(bptr, tptr, lo, hi)] = base[lo:hi].copy()
        for lo in range(0, added, chunk):
            hi = min(lo + chunk, added)
            base[_destinations(tptr, bptr[1:], lo, hi)] = moved[lo:hi]
        del base, moved
        self._bptr = bptr + tptr
        self._tail = np.zeros(0, dtype=_POSTING)
        self._tptr = np.zeros_like(tptr)

    def _tf(self, tid: int, rows: Rows) -> npt.NDArray[Any]:
        """The exact term frequencies of ``rows`` (postings of term ``tid``, slots ascending):
        ``rows["tf"]`` itself unless the term has a tf of ``_TF_CAP`` or more."""
        tf = rows["tf"]
        big = self._big.get(tid)
        if not big:
            return tf
        exact = tf.astype(np.int64)
        slots = rows["slot"]
        for slot, value in big.items():
            at = int(np.searchsorted(slots, slot))
            if at < slots.shape[0] and int(slots[at]) == slot:
                exact[at] = value
        return exact

    def _rows(self, tid: int) -> Rows:
        """The postings rows of term ``tid`` (dead slots included), slots ascending."""
        b0, b1 = self._bptr[tid : tid + 2].tolist()
        t0, t1 = self._tptr[tid : tid + 2].tolist()
        if t0 == t1:
            return self._base[b0:b1]
        if b0 == b1:
            return self._tail[t0:t1]
        both = np.concatenate((_raw(self._base[b0:b1]), _raw(self._tail[t0:t1])))
        return both.view(_POSTING)

    def remove(self, doc_id: str, tokens: Sequence[str] | None = None) -> bool:
        """Remove one document.

        Args:
            doc_id: Its id.
            tokens: The tokens it was indexed with, if the caller still has them: its terms are
                then checked in their postings, O(its terms · log postings). Without them, or
                when they do not match what was indexed, the postings are scanned for its
                slot, O(postings) (the index keeps no forward index, to save its memory).

        Returns:
            True if it was indexed, False if it was not (nothing changes then).

        Raises:
            InvalidTypeError: ``doc_id`` is not a str.
        """
        return self.remove_many([doc_id], None if tokens is None else [tokens]) == 1

    def remove_many(
        self, doc_ids: Iterable[str], tokens: Iterable[Sequence[str]] | None = None
    ) -> int:
        """Remove several documents; absent (or repeated) ids are ignored.

        Args:
            doc_ids: The ids.
            tokens: The tokens each was indexed with, in the same order (optional, see
                :meth:`remove`); the documents whose tokens are missing or do not match are
                found by one scan of the postings for all of them.

        Returns:
            How many were removed.

        Raises:
            InvalidTypeError: An id is not a str, or ``tokens`` has another length than
                ``doc_ids``; nothing is removed.
        """
        if isinstance(doc_ids, str) or not isinstance(doc_ids, Iterable):
            raise InvalidTypeError(
                f"doc_ids must be an iterable of str, got {type(doc_ids).__name__}"
            )
        ids = list(doc_ids)
        for doc_id in ids:
            if not isinstance(doc_id, str):
                raise InvalidTypeError(f"doc_ids must contain str, got {type(doc_id).__name__}")
        given: list[Sequence[str] | None] = [None] * len(ids) if tokens is None else list(tokens)
        if len(given) != len(ids):
            raise InvalidTypeError(f"{len(given)} token lists for {len(ids)} doc_ids")
        slots: dict[int, str] = {}
        terms: list[npt.NDArray[np.intp]] = []
        unknown: list[int] = []
        for doc_id, toks in zip(ids, given, strict=True):
            slot = self._ids.get(doc_id)
            if slot is None or slot in slots:
                continue
            slots[slot] = doc_id
            found = None if toks is None else self._terms_given(slot, toks)
            if found is None:
                unknown.append(slot)
            else:
                terms.append(found)
        if not slots:
            return 0
        if unknown:
            terms.append(self._terms_scanned(np.array(sorted(unknown), dtype=np.int64)))
        gone = np.fromiter(slots, dtype=np.int64, count=len(slots))
        for doc_id in slots.values():
            self._ids.pop(doc_id)
            self._xor ^= _id_hash(doc_id)
        self._alive[gone] = False
        self._total -= int(self._dl[gone].sum())
        for found in terms:
            np.subtract.at(self._df, found, 1)
        self._ndead += len(slots)
        self._stats_cache = None
        if self._ndead >= self._COMPACT_MIN_DEAD and 4 * self._ndead > self._nslots:
            self.compact()
        return len(slots)

    def _terms_given(self, slot: int, tokens: Sequence[str]) -> npt.NDArray[np.intp] | None:
        """The term ids of ``slot``, from the tokens it was indexed with; ``None`` if they do not
        match its postings. O(terms · log postings).

        Every term must hold the slot with the tokens' count as tf, and the counts must add
        up to the document's length: as each posting has tf >= 1, no posting is then left out.
        """
        try:
            counts = Counter(tokens)
        except TypeError:  # an unhashable token
            return None
        if sum(counts.values()) != int(self._dl[slot]):
            return None
        tids: list[int] = []
        for term, count in counts.items():
            tid = self._vocab.get(term)
            if tid is None:
                return None
            rows = self._rows(tid)
            slots = rows["slot"]
            at = int(np.searchsorted(slots, slot))
            if at == rows.shape[0] or int(slots[at]) != slot:
                return None
            tf = int(rows["tf"][at])
            if (self._big.get(tid, {}).get(slot, -1) if tf == _TF_CAP else tf) != count:
                return None
            tids.append(tid)
        return np.array(tids, dtype=np.intp)

    def _terms_scanned(self, slots: I64) -> npt.NDArray[np.intp]:
        """The term ids of every posting of ``slots``, one per posting: one scan of the
        postings, O(postings · min(slots, log slots)) (``np.isin``; ~2 ms per 1M postings for
        one slot)."""
        found: list[npt.NDArray[np.intp]] = []
        for rows, ptr in ((self._base, self._bptr), (self._tail, self._tptr)):
            where = np.flatnonzero(np.isin(rows["slot"], slots))
            found.append(np.searchsorted(ptr, where, side="right") - 1)
        return np.concatenate(found)

    def clear(self) -> None:
        """Remove every document."""
        self._reset()

    def compact(self) -> None:
        """Drop tombstones and unused terms, renumbering slots; O(postings).

        Runs automatically when dead slots exceed a quarter of all slots. Scores, ids and the
        order of ties are unchanged. Does nothing when there is nothing to drop.
        """
        terms = len(self._vocab)
        if self._ndead or int(np.count_nonzero(self._df[:terms])) != terms:
            self._compact()

    def _compact(self) -> tuple[Rows, I64]:
        """Compact (see :meth:`compact`); returns the postings rows and their term pointer."""
        slots = self._nslots
        alive = self._alive[:slots]
        terms = len(self._vocab)
        self._merge_tail()
        plen = np.diff(self._bptr)
        live_terms = self._df[:terms] > 0

        slot_map = np.cumsum(alive, dtype=np.int64) - 1
        term_map = np.cumsum(live_terms, dtype=np.int64) - 1
        rows: Rows = self._base
        row_terms = np.repeat(np.arange(terms, dtype=np.int64), plen)
        keep = alive[rows["slot"]]
        rows = _raw(rows)[keep].view(_POSTING)  # a new array
        rows["slot"] = slot_map[rows["slot"]]
        big = {
            int(term_map[tid]): {int(slot_map[s]): tf for s, tf in entries.items() if alive[s]}
            for tid, entries in self._big.items()
            if live_terms[tid]
        }
        nlive_terms = int(np.count_nonzero(live_terms))
        counts = np.bincount(term_map[row_terms[keep]], minlength=nlive_terms)
        ptr = np.zeros(nlive_terms + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])

        ids = self._ids.compacted(np.flatnonzero(alive))
        vocab = self._vocab.compacted(np.flatnonzero(live_terms))
        dl = self._dl[:slots][alive]
        xor, total = self._xor, self._total
        self._install(ids, dl, vocab, rows, ptr, {t: e for t, e in big.items() if e})
        self._xor, self._total = xor, total
        return rows, ptr

    def _install(
        self,
        ids: IdMap,
        dl: I32,
        vocab: IdMap,
        rows: Rows,
        ptr: I64,
        big: dict[int, dict[int, int]],
    ) -> None:
        """Replace the whole state by compacted arrays (no dead slots, no unused terms)."""
        self._reset()
        n = len(ids)
        self._ids = ids
        self._alive = np.ones(n, dtype=np.bool_)
        self._dl = np.array(dl, dtype=np.int32)  # a writable copy
        self._nslots = n
        self._vocab = vocab
        self._base = rows
        self._bptr = ptr
        self._big = big
        self._tptr = np.zeros_like(ptr)
        self._df = np.diff(ptr)

    # -- fingerprint ---------------------------------------------------------------------------

    def fingerprint(self) -> tuple[int, int]:
        """``(count, xor)`` of the live ids: count and XOR of their 64-bit BLAKE2b hashes.

        Maintained incrementally (O(1)). Compare with :meth:`fingerprint_of` of the ids the
        index should hold; equal fingerprints mean the same set (up to a 2**-64 accident).
        """
        return len(self._ids), self._xor

    @staticmethod
    def fingerprint_of(doc_ids: Iterable[str]) -> tuple[int, int]:
        """The :meth:`fingerprint` an index holding exactly ``set(doc_ids)`` would have.

        Raises:
            InvalidTypeError: An id is not a str.
        """
        if isinstance(doc_ids, str) or not isinstance(doc_ids, Iterable):
            raise InvalidTypeError(
                f"doc_ids must be an iterable of str, got {type(doc_ids).__name__}"
            )
        unique = set(doc_ids)
        xor = 0
        for doc_id in unique:
            if not isinstance(doc_id, str):
                raise InvalidTypeError(f"doc_ids must contain str, got {type(doc_id).__name__}")
            xor ^= _id_hash(doc_id)
        return len(unique), xor

    # -- scoring -------------------------------------------------------------------------------

    def _stats(self) -> tuple[int, float, float]:
        """``(N, avgdl, ε · mean_idf)``, cached until the next write."""
        cached = self._stats_cache
        if cached is not None:
            return cached
        n = len(self._ids)
        df = self._df[: len(self._vocab)]
        live = df[df > 0]
        if n == 0 or live.size == 0:
            stats = (n, self.avgdl, 0.0)
        else:
            idf = np.log(n - live + 0.5) - np.log(live + 0.5)
            mean_idf = float(idf.sum()) / live.size
            stats = (n, self._total / n, self._epsilon * mean_idf)
        self._stats_cache = stats
        return stats

    def _idf(self, df: int, n: int, floor: float) -> float:
        idf = math.log(n - df + 0.5) - math.log(df + 0.5)
        return floor if idf < 0 else idf

    def _match(self, query_tokens: Sequence[str]) -> tuple[I64, F64]:
        """Slots (ascending) of live documents holding a query term, and their scores."""
        query = _check_query(query_tokens)
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
        if not len(self._ids):
            return empty
        n, avgdl, floor = self._stats()
        k1, b = self._k1, self._b
        vocab, df = self._vocab, self._df
        cache: dict[int, tuple[npt.NDArray[np.int32], F64]] = {}
        slot_parts: list[npt.NDArray[np.int32]] = []
        score_parts: list[F64] = []
        for token in query:
            tid = vocab.get(token)
            if tid is None:
                continue
            part = cache.get(tid)
            if part is None:
                d = int(df[tid])
                if d == 0:
                    continue
                idf = self._idf(d, n, floor)
                rows = self._rows(tid)
                slots = rows["slot"].copy()  # contiguous: the gathers below run faster
                tf = self._tf(tid, rows)
                if rows.shape[0] != d:  # some postings are dead
                    live = self._alive[slots]
                    slots, tf = slots[live], tf[live]
                dl = self._dl[slots]
                # Same operations, in the same order, as rank_bm25.BM25Okapi.get_scores.
                contrib = idf * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)))
                part = cache[tid] = (slots, contrib)
            slot_parts.append(part[0])
            score_parts.append(part[1])
        if not slot_parts:
            return empty
        if len(slot_parts) == 1:
            return slot_parts[0].astype(np.int64), score_parts[0] + 0.0
        all_slots = np.concatenate(slot_parts)
        all_scores = np.concatenate(score_parts)
        # bincount adds the weights in input order, i.e. in query order, like rank_bm25.
        if 8 * all_slots.shape[0] >= self._nslots:  # dense scratch costs O(postings) here
            hits = np.bincount(all_slots, minlength=self._nslots)
            sums = np.bincount(all_slots, weights=all_scores, minlength=self._nslots)
            matched = np.flatnonzero(hits)
            return matched.astype(np.int64), np.asarray(sums[matched], dtype=np.float64)
        unique, inverse = np.unique(all_slots, return_inverse=True)
        sums = np.bincount(inverse, weights=all_scores, minlength=unique.shape[0])
        return unique.astype(np.int64), np.asarray(sums, dtype=np.float64)

    @staticmethod
    def _order(scores: F64, k: int | None) -> I64:
        """Indices of the top ``k`` (all if None) by score desc, then index asc."""
        m = scores.shape[0]
        neg = -scores
        if k is None or k >= m:
            return np.argsort(neg, kind="stable")
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        threshold = np.partition(neg, k - 1)[k - 1]
        candidates = np.flatnonzero(neg <= threshold)
        return candidates[np.argsort(neg[candidates], kind="stable")[:k]]

    @staticmethod
    def _pairs(ids: IdMap, slots: I64, scores: F64) -> list[tuple[str, float]]:
        key = ids.key
        return [(key(s), sc) for s, sc in zip(slots.tolist(), scores.tolist(), strict=True)]

    def search(self, query_tokens: Sequence[str], k: int | None = None) -> list[tuple[str, float]]:
        """Documents holding at least one query term, best first.

        Args:
            query_tokens: The query's tokens (same tokenizer as the documents); repeats count.
            k: Return at most this many (``None``: all matches).

        Returns:
            ``(doc_id, score)`` pairs by score descending; ties in insertion order.

        Raises:
            InvalidTypeError: ``query_tokens`` is not a sequence of str, or ``k`` not an int.
            InvalidInputError: ``k`` is negative.
        """
        if k is not None:
            _check_count(k, "k", 0)
        slots, scores = self._match(query_tokens)
        order = self._order(scores, k)
        return self._pairs(self._ids, slots[order], scores[order])

    def ranked(
        self, query_tokens: Sequence[str], chunk_size: int = 256
    ) -> Iterator[list[tuple[str, float]]]:
        """Walk the matches of :meth:`search` in chunks, best first.

        Scores are computed when this is called (a snapshot: later writes do not affect the
        iterator). Chunks are sorted lazily by partial selections of growing size (1, 4, 16...
        chunks), so a caller that stops early never pays for sorting every match.

        Args:
            query_tokens: The query's tokens.
            chunk_size: Pairs per chunk (the last may be shorter).

        Returns:
            An iterator of non-empty lists of ``(doc_id, score)``; their concatenation equals
            ``search(query_tokens)``.

        Raises:
            InvalidTypeError: Wrong argument types.
            InvalidInputError: ``chunk_size`` < 1.
        """
        _check_count(chunk_size, "chunk_size", 1)
        slots, scores = self._match(query_tokens)
        return self._chunks(self._ids, slots, scores, chunk_size)

    @classmethod
    def _chunks(
        cls, ids: IdMap, slots: I64, scores: F64, chunk_size: int
    ) -> Iterator[list[tuple[str, float]]]:
        m = scores.shape[0]
        done = 0
        want = chunk_size
        while done < m:
            # Top `want` by the same total order each round, so each round extends the last.
            order = cls._order(scores, want)
            for start in range(done, order.shape[0], chunk_size):
                part = order[start : start + chunk_size]
                yield cls._pairs(ids, slots[part], scores[part])
            done = order.shape[0]
            want *= 4

    def get_scores(self, query_tokens: Sequence[str]) -> dict[str, float]:
        """Scores of the documents holding at least one query term (others score 0).

        Raises:
            InvalidTypeError: ``query_tokens`` is not a sequence of str.
        """
        slots, scores = self._match(query_tokens)
        key = self._ids.key
        return {key(s): sc for s, sc in zip(slots.tolist(), scores.tolist(), strict=True)}

    def score(self, query_tokens: Sequence[str], doc_ids: Iterable[str]) -> dict[str, float]:
        """Scores of specific documents (0.0 for those holding no query term).

        Costs O(|query| · log(postings)) per document (one vectorised search per term).

        Args:
            query_tokens: The query's tokens.
            doc_ids: Indexed ids.

        Returns:
            ``{doc_id: score}``.

        Raises:
            MemoryNotFoundError: An id is not indexed.
            InvalidTypeError: Wrong argument types.
        """
        query = _check_query(query_tokens)
        if isinstance(doc_ids, str) or not isinstance(doc_ids, Iterable):
            raise InvalidTypeError(
                f"doc_ids must be an iterable of str, got {type(doc_ids).__name__}"
            )
        wanted = list(doc_ids)
        slots: list[int] = []
        for doc_id in wanted:
            if not isinstance(doc_id, str):
                raise InvalidTypeError(f"doc_ids must contain str, got {type(doc_id).__name__}")
            slot = self._ids.get(doc_id)
            if slot is None:
                raise MemoryNotFoundError(f"document {doc_id!r} is not in the BM25 index")
            slots.append(slot)
        if not wanted:
            return {}
        n, avgdl, floor = self._stats()
        k1, b = self._k1, self._b
        terms: list[tuple[float, int, Rows] | None] = []
        for token in query:
            tid = self._vocab.get(token)
            d = 0 if tid is None else int(self._df[tid])
            if tid is None or d == 0:
                terms.append(None)
            else:
                terms.append((self._idf(d, n, floor), tid, self._rows(tid)))
        at = np.asarray(slots, dtype=np.int64)
        # Same operations, in the same order, as the per-document formula (and rank_bm25).
        norm = (
            k1 * (1 - b + b * self._dl[at].astype(np.float64) / avgdl)
            if avgdl > 0
            else np.zeros(at.shape[0], dtype=np.float64)  # no document has a term
        )
        total = np.zeros(at.shape[0], dtype=np.float64)
        for term in terms:
            if term is None or term[2].shape[0] == 0:
                continue
            idf, tid, rows = term
            column = rows["slot"]
            j = np.minimum(np.searchsorted(column, at), column.shape[0] - 1)
            hit = column[j] == at
            if hit.any():
                tf = self._tf(tid, rows)[j[hit]].astype(np.float64)
                total[hit] = total[hit] + idf * (tf * (k1 + 1) / (tf + norm[hit]))
        return dict(zip(wanted, total.tolist(), strict=True))

    # -- introspection -------------------------------------------------------------------------

    def nbytes(self) -> int:
        """Bytes held by the index's numpy arrays (capacity included; dictionaries excluded)."""
        arrays: list[npt.NDArray[Any]] = [
            self._alive, self._dl, self._df,
            self._base, self._bptr, self._tail, self._tptr,
        ]  # fmt: skip
        return sum(a.nbytes for a in arrays)

    def stats(self) -> dict[str, int | float]:
        """Sizes: documents, dead_slots, terms, postings, total_tokens, avgdl, array_bytes."""
        return {
            "documents": len(self._ids),
            "dead_slots": self._ndead,
            "terms": int(np.count_nonzero(self._df)),
            "postings": int(self._df.sum()),
            "total_tokens": self._total,
            "avgdl": self.avgdl,
            "array_bytes": self.nbytes(),
        }

    # -- persistence ---------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the index to ``path`` atomically (temp file in the same directory, then rename).

        Compacts the index first. The file is an uncompressed ``.npz`` holding the format
        version, ``k1``/``b``/``epsilon``, ids, vocabulary and postings.

        Raises:
            OSError: The file cannot be written (the old file, if any, is left intact).
        """
        target = Path(path)
        rows, ptr = self._compact()
        id_blob, id_lengths = _pack_strings(self._ids.keys())
        term_blob, term_lengths = _pack_strings(self._vocab.keys())
        arrays: dict[str, npt.NDArray[Any]] = {
            "magic": np.frombuffer(_MAGIC, dtype=np.uint8),
            "version": np.array([INDEX_FORMAT_VERSION], dtype=np.int64),
            "params": np.array([self._k1, self._b, self._epsilon], dtype=np.float64),
            "id_blob": id_blob,
            "id_lengths": id_lengths,
            "doc_len": self._dl[: self._nslots],
            "term_blob": term_blob,
            "term_lengths": term_lengths,
            "ptr": ptr,
            "postings": self._saved_rows(rows, ptr),
            "id_xor": np.array([self._xor], dtype=np.uint64),
        }
        directory = target.parent
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, allow_pickle=False, **arrays)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        if hasattr(os, "O_DIRECTORY"):
            with contextlib.suppress(OSError):
                dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    os.fsync(dir_fd)
                finally:
                    os.close(dir_fd)

    def _saved_rows(self, rows: Rows, ptr: I64) -> I32:
        """The compacted ``rows`` as the file holds them: ``(slot, tf)`` pairs of ``int32``."""
        out = np.empty((rows.shape[0], 2), dtype=np.int32)
        out[:, 0] = rows["slot"]
        out[:, 1] = rows["tf"]
        for tid, entries in self._big.items():
            start, end = int(ptr[tid]), int(ptr[tid + 1])
            for slot, tf in entries.items():
                out[start + int(np.searchsorted(out[start:end, 0], slot)), 1] = tf
        return out

    @classmethod
    def load(cls, path: str | os.PathLike[str] | IO[bytes], name: str | None = None) -> BM25Index:
        """Read an index written by :meth:`save` (from a path, or a binary file object).

        Args:
            path: The file, or its bytes as a file object.
            name: How messages name it (default: the path).

        Raises:
            StoreError: The file is missing, unreadable, corrupted, or of another format
                version; the caller should rebuild the index from its documents.
        """
        shown = name if name is not None else repr(getattr(path, "name", path))
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
        except Exception as exc:  # any failure to read means: rebuild
            raise StoreError(f"cannot read BM25 index {shown}: {exc}") from exc
        try:
            return cls._from_arrays(arrays)
        except Exception as exc:  # CogmemError from the parameters included
            raise StoreError(f"invalid BM25 index {shown}: {exc}") from exc

    @classmethod
    def _from_arrays(cls, arrays: dict[str, npt.NDArray[Any]]) -> BM25Index:
        def get(name: str, dtype: type[np.generic], ndim: int) -> npt.NDArray[Any]:
            array = arrays[name]
            if array.dtype != np.dtype(dtype) or array.ndim != ndim:
                raise ValueError(f"array {name!r} has dtype {array.dtype}, ndim {array.ndim}")
            return array

        if get("magic", np.uint8, 1).tobytes() != _MAGIC:
            raise ValueError("not a cogmem BM25 index")
        version = get("version", np.int64, 1)
        if version.shape != (1,) or int(version[0]) != INDEX_FORMAT_VERSION:
            raise ValueError(f"format version {version.tolist()}, expected {INDEX_FORMAT_VERSION}")
        params = get("params", np.float64, 1)
        if params.shape != (3,):
            raise ValueError("params must hold k1, b, epsilon")
        index = cls(*params.tolist())
        ids = _unpack_strings(get("id_blob", np.uint8, 1), get("id_lengths", np.int64, 1))
        vocab = _unpack_strings(get("term_blob", np.uint8, 1), get("term_lengths", np.int64, 1))
        dl = get("doc_len", np.int32, 1)
        ptr = get("ptr", np.int64, 1)
        rows = get("postings", np.int32, 2)
        n, terms = len(ids), len(vocab)
        if "" in ids or len(set(ids)) != n or len(set(vocab)) != terms:
            raise ValueError("ids must be unique and non-empty, terms unique")
        if dl.shape[0] != n or (n and int(dl.min()) < 0):
            raise ValueError("doc_len does not match the ids")
        if ptr.shape[0] != terms + 1 or int(ptr[0]) != 0 or rows.shape[1] != 2:
            raise ValueError("postings pointer has the wrong shape")
        plen = np.diff(ptr)
        if (terms and int(plen.min()) < 1) or int(ptr[-1]) != rows.shape[0]:
            raise ValueError("postings pointer is inconsistent")
        slots, tf = rows[:, 0], rows[:, 1]
        if rows.shape[0]:
            if int(slots.min()) < 0 or int(slots.max()) >= n or int(tf.min()) < 1:
                raise ValueError("postings out of range")
            descending = np.diff(slots) <= 0
            descending[ptr[1:-1] - 1] = False  # a new term starts: slots restart
            if descending.any():
                raise ValueError("postings are not sorted by slot")
        if not np.array_equal(np.bincount(slots, weights=tf, minlength=n), dl):
            raise ValueError("document lengths do not match the postings")
        xor = get("id_xor", np.uint64, 1)
        if xor.shape != (1,):
            raise ValueError("id_xor must hold one value")
        postings = np.empty(rows.shape[0], dtype=_POSTING)
        postings["slot"] = slots
        postings["tf"] = np.minimum(tf, _TF_CAP)
        big: dict[int, dict[int, int]] = {}
        for at in np.flatnonzero(tf >= _TF_CAP).tolist():
            term = int(np.searchsorted(ptr, at, side="right")) - 1
            big.setdefault(term, {})[int(slots[at])] = int(tf[at])
        index._install(IdMap(ids), dl, IdMap(vocab), postings, ptr, big)
        index._total = int(dl.sum())
        index._xor = int(xor[0])
        return index
