"""Running the model: an onnxruntime session and a tokenizer, texts batched by length,
mean-pooled and normalised.

A sentence of tokens with final hidden states ``h_t`` (384 wide) and attention mask ``m_t`` is
embedded by mean pooling followed by L2 normalisation::

    e = Σ_t m_t h_t / Σ_t m_t
    v = e / ‖e‖₂

so every vector has unit length and cosine similarity is a plain dot product.
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from cogmem.errors import EmbedderError

from .locate import MINILM_DIMENSION
from .protocol import FloatMatrix

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

__all__ = ["Runner", "default_threads", "new_session", "package_version"]

# onnxruntime's fused SkipLayerNormalization kernel was several times slower than the Add +
# LayerNormalization it replaces (onnxruntime 1.31, x86; see docs/embedder.md).
_DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)


def package_version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def new_session(path: Path) -> onnxruntime.InferenceSession:
    """A single-threaded onnxruntime CPU session for ``path`` with cogmem's settings.

    Parallelism comes from running several batches at once (:meth:`Runner.embed`), not from
    onnxruntime's intra-op threads, which was faster on 2 CPUs (``docs/embedder.md``) with
    bit-identical vectors. A session may be run from several threads at once.
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
class Runner:
    """A loaded session and tokenizer, and the pipeline that turns texts into vectors."""

    session: onnxruntime.InferenceSession
    tokenizer: tokenizers.Tokenizer
    input_names: tuple[str, ...]
    output_name: str

    @classmethod
    def create(
        cls, session: onnxruntime.InferenceSession, tokenizer: tokenizers.Tokenizer, path: Path
    ) -> Runner:
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
