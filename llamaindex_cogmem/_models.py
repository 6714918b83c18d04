"""What every adapter built on a LlamaIndex LLM shares: checking the LLM, reading the
``prompt`` argument, and naming the LLM in messages."""

from __future__ import annotations

from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import BasePromptTemplate, PromptTemplate

from cogmem import InvalidTypeError

__all__ = ["check_llm", "model_name", "prompt_template"]


def check_llm(llm: object) -> LLM:
    """``llm`` if it is a LlamaIndex ``LLM``.

    Raises:
        InvalidTypeError: It is not.
    """
    if not isinstance(llm, LLM):
        raise InvalidTypeError(f"llm must be a LlamaIndex LLM, got {type(llm).__name__}")
    return llm


def prompt_template(
    prompt: object, default: BasePromptTemplate
) -> tuple[BasePromptTemplate, set[str]]:
    """The template a ``prompt`` argument names (``None``: ``default``; a ``str``: a
    ``PromptTemplate`` of it) and its variables.

    Raises:
        InvalidTypeError: ``prompt`` is neither a str, a LlamaIndex prompt template nor ``None``.
    """
    if prompt is None:
        template = default
    elif isinstance(prompt, str):
        template = PromptTemplate(prompt)
    elif isinstance(prompt, BasePromptTemplate):
        template = prompt
    else:
        raise InvalidTypeError(
            "prompt must be a template string or a LlamaIndex prompt template, "
            f"got {type(prompt).__name__}"
        )
    return template, set(template.template_vars)


def model_name(llm: LLM) -> str:
    """How messages name ``llm``."""
    try:
        return f"{llm.class_name()}"
    except Exception:  # an LLM whose class name cannot be computed
        return type(llm).__name__
