"""Retrieval stages from LlamaIndex: query expansion and HyDE from any LLM, a reranker from
any node postprocessor (``SentenceTransformerRerank``, ``LLMRerank``, ``CohereRerank``, ...),
for ``CognitiveMemory(stages=Stages(...))``.

The prompts' variables, reading the replies and the errors are the core's
(:mod:`cogmem.stage_models`); this module formats the prompts and calls the models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from llama_index.core.llms.llm import LLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.prompts import BasePromptTemplate
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from cogmem import InvalidTypeError
from cogmem.stage_models import model_expander, model_hyde, ranked_scores
from cogmem.stages import Expand, Hyde, Rerank

from ._models import check_llm, model_name, prompt_template
from .prompts import DEFAULT_EXPAND_PROMPT, DEFAULT_HYDE_PROMPT

__all__ = ["expander_from", "hyde_from", "reranker_from"]


def expander_from(
    llm: LLM, prompt: str | BasePromptTemplate | None = None, *, count: int = 3
) -> Expand:
    """Query expansion (``query -> list[str]``) from any LlamaIndex LLM: it is asked for
    ``count`` rewrites of the query, one per line (``llm.predict``).

    Args:
        llm: Any LlamaIndex ``LLM``.
        prompt: A template with ``{query}`` (and maybe ``{count}``); default
            :data:`~.prompts.DEFAULT_EXPAND_PROMPT`.
        count: At most this many rewrites.
    """
    check_llm(llm)
    template, names = prompt_template(prompt, DEFAULT_EXPAND_PROMPT)

    def ask(values: Mapping[str, str]) -> object:
        return llm.predict(template, **values)

    return model_expander(ask, names, model_name(llm), count)


def hyde_from(llm: LLM, prompt: str | BasePromptTemplate | None = None) -> Hyde:
    """HyDE (``query -> str``) from any LlamaIndex LLM: it writes the memory that would
    answer the query, which is searched beside it.

    Args:
        llm: Any LlamaIndex ``LLM``.
        prompt: A template with ``{query}``; default :data:`~.prompts.DEFAULT_HYDE_PROMPT`.
    """
    check_llm(llm)
    template, names = prompt_template(prompt, DEFAULT_HYDE_PROMPT)

    def ask(values: Mapping[str, str]) -> object:
        return llm.predict(template, **values)

    return model_hyde(ask, names, model_name(llm))


def reranker_from(postprocessor: BaseNodePostprocessor) -> Rerank:
    """A reranker (``(query, texts) -> scores``) from any LlamaIndex node postprocessor that
    reranks: the one a query engine already uses, unchanged. Its scores decide (its order
    when it sets none); the nodes it drops (``top_n``) rank after those it keeps.

    Raises:
        InvalidTypeError: ``postprocessor`` is not a ``BaseNodePostprocessor``.
    """
    if not isinstance(postprocessor, BaseNodePostprocessor):
        raise InvalidTypeError(
            f"postprocessor must be a LlamaIndex BaseNodePostprocessor, "
            f"got {type(postprocessor).__name__}"
        )

    def rerank(query: str, texts: Sequence[str]) -> list[float]:
        nodes = [
            NodeWithScore(node=TextNode(text=text, id_=str(i)), score=0.0)
            for i, text in enumerate(texts)
        ]
        kept = postprocessor.postprocess_nodes(nodes, query_bundle=QueryBundle(query))
        return ranked_scores(len(texts), [(int(n.node.node_id), n.score) for n in kept])

    return rerank
