"""Deterministic, model-free stand-ins for the retrieval stages (cogmem.stages), so that the
benchmarks measure each stage's plumbing, its effect and its cost without a model:

* ``keyword_expander``: the query's content words (stop words dropped, not stemmed), one
  rewrite;
* ``statement_hyde``: the query's content words as a statement, searched as a document;
* ``overlap_reranker``: the share of the query's content words a text holds.

They stand in for a model's output; their quality figures are no claim about any model's.
"""

from __future__ import annotations

from collections.abc import Sequence

from cogmem.lexical import Tokenizer
from cogmem.stages import Stages

__all__ = ["STAND_INS", "keyword_expander", "overlap_reranker", "statement_hyde"]

_WORDS = Tokenizer(stem=False)


def keyword_expander(query: str) -> list[str]:
    """``[content words of the query]`` (empty when it has none besides itself)."""
    words = " ".join(_WORDS(query))
    return [words] if words else []


def statement_hyde(query: str) -> str:
    """The query's content words, ending with a full stop."""
    words = " ".join(_WORDS(query))
    return f"{words}." if words else ""


def overlap_reranker(query: str, texts: Sequence[str]) -> list[float]:
    """``|words(query) ∩ words(text)| / |words(query)|`` per text."""
    wanted = set(_WORDS(query))
    return [len(wanted & set(_WORDS(t))) / max(1, len(wanted)) for t in texts]


#: Each stage on its own, by name.
STAND_INS = {
    "expand": Stages(expand=keyword_expander),
    "hyde": Stages(hyde=statement_hyde),
    "rerank": Stages(rerank=overlap_reranker),
}
