"""What every adapter built on a LangChain model shares: reading the ``prompt`` argument,
naming the model in messages, and taking the text out of a reply."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.prompts import BasePromptTemplate, ChatPromptTemplate
from langchain_core.runnables import Runnable

from cogmem import InvalidTypeError

__all__ = ["check_model", "model_name", "prompt_template", "reply_text"]


def check_model(model: object) -> Runnable[Any, Any]:
    """``model`` if it is a chat model, an LLM or any Runnable.

    Raises:
        InvalidTypeError: It is none of these.
    """
    if not isinstance(model, Runnable):
        raise InvalidTypeError(
            f"model must be a LangChain chat model, LLM or Runnable, got {type(model).__name__}"
        )
    return model


def prompt_template(
    prompt: object, default: BasePromptTemplate[Any]
) -> tuple[BasePromptTemplate[Any], set[str]]:
    """The template a ``prompt`` argument names (``None``: ``default``; a ``str``: a chat
    template of it) and its variables.

    Raises:
        InvalidTypeError: ``prompt`` is neither a str, a LangChain prompt template nor ``None``.
    """
    if prompt is None:
        template = default
    elif isinstance(prompt, str):
        template = ChatPromptTemplate.from_template(prompt)
    elif isinstance(prompt, BasePromptTemplate):
        template = prompt
    else:
        raise InvalidTypeError(
            f"prompt must be a template string or a LangChain prompt template, "
            f"got {type(prompt).__name__}"
        )
    return template, set(template.input_variables)


def reply_text(reply: object) -> str | None:
    """The text of a model's reply (a message or a str), ``None`` for anything else."""
    if isinstance(reply, BaseMessage):
        return str(reply.text)
    if isinstance(reply, str):
        return reply
    return None


def model_name(model: Runnable[Any, Any]) -> str:
    """How messages name ``model``."""
    try:
        return model.get_name()
    except Exception:  # a Runnable whose name cannot be computed
        return type(model).__name__
