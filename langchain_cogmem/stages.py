"""Retrieval stages from LangChain: query expansion and HyDE from any chat model, a reranker
from any document compressor or cross-encoder, for ``CognitiveMemory(stages=Stages(...))``.

The prompts' variables, reading the replies and the errors are the core's
(:mod:`cogmem.stage_models`); this module formats the prompts and calls the models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.cross_encoders import BaseCrossEncoder
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.prompts import BasePromptTemplate
from langchain_core.runnables import Runnable

from cogmem import InvalidTypeError
from cogmem.stage_models import model_expander, model_hyde, ranked_scores
from cogmem.stages import Expand, Hyde, Rerank

from ._models import check_model, model_name, prompt_template, reply_text
from .prompts import DEFAULT_EXPAND_PROMPT, DEFAULT_HYDE_PROMPT

__all__ = ["expander_from", "hyde_from", "reranker_from"]

_INDEX = "cogmem_index"


def _asker(model: Runnable[Any, Any], template: BasePromptTemplate[Any]) -> Any:
    chain = template | model

    def ask(values: Mapping[str, str]) -> object:
        reply = chain.invoke(dict(values))
        text = reply_text(reply)
        return reply if text is None else text

    return ask


def expander_from(
    model: Runnable[Any, Any],
    prompt: str | BasePromptTemplate[Any] | None = None,
    *,
    count: int = 3,
) -> Expand:
    """Query expansion (``query -> list[str]``) from any LangChain chat model, LLM or
    Runnable: it is asked for ``count`` rewrites of the query, one per line.

    Args:
        model: A chat model, an LLM or any Runnable taking the formatted prompt.
        prompt: A template with ``{query}`` (and maybe ``{count}``); default
            :data:`~.prompts.DEFAULT_EXPAND_PROMPT`.
        count: At most this many rewrites.

    Raises:
        InvalidTypeError / InvalidInputError: A bad model, prompt or count.
    """
    check_model(model)
    template, names = prompt_template(prompt, DEFAULT_EXPAND_PROMPT)
    return model_expander(_asker(model, template), names, model_name(model), count)


def hyde_from(
    model: Runnable[Any, Any], prompt: str | BasePromptTemplate[Any] | None = None
) -> Hyde:
    """HyDE (``query -> str``) from any LangChain chat model, LLM or Runnable: it writes the
    memory that would answer the query, which is searched beside it.

    Args:
        model: A chat model, an LLM or any Runnable taking the formatted prompt.
        prompt: A template with ``{query}``; default :data:`~.prompts.DEFAULT_HYDE_PROMPT`.
    """
    check_model(model)
    template, names = prompt_template(prompt, DEFAULT_HYDE_PROMPT)
    return model_hyde(_asker(model, template), names, model_name(model))


def reranker_from(reranker: BaseDocumentCompressor | BaseCrossEncoder) -> Rerank:
    """A reranker (``(query, texts) -> scores``) from a LangChain document compressor (e.g.
    ``CrossEncoderReranker``, ``CohereRerank``, ``FlashrankRerank``) or a cross-encoder
    (``HuggingFaceCrossEncoder``): the one a retrieval chain already uses, unchanged.

    A compressor's order decides (its ``relevance_score`` metadata when it sets one); the
    documents it drops rank after those it keeps.

    Raises:
        InvalidTypeError: ``reranker`` is neither.
    """
    if isinstance(reranker, BaseCrossEncoder):
        encoder = reranker

        def score(query: str, texts: Sequence[str]) -> list[float]:
            return [float(s) for s in encoder.score([(query, t) for t in texts])]

        return score
    if not isinstance(reranker, BaseDocumentCompressor):
        raise InvalidTypeError(
            "reranker must be a LangChain BaseDocumentCompressor or BaseCrossEncoder, "
            f"got {type(reranker).__name__}"
        )
    compressor = reranker

    def rerank(query: str, texts: Sequence[str]) -> list[float]:
        documents = [Document(page_content=t, metadata={_INDEX: i}) for i, t in enumerate(texts)]
        kept = compressor.compress_documents(documents, query)
        returned = []
        for doc in kept:
            score = doc.metadata.get("relevance_score")
            returned.append(
                (
                    int(doc.metadata[_INDEX]),
                    float(score) if isinstance(score, (int, float)) else None,
                )
            )
        return ranked_scores(len(texts), returned)

    return rerank
