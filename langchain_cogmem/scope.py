"""What a LangGraph run carries for a namespace template (``"user-{user_id}"``): the run's
context (``create_agent(..., context_schema=...)``, ``invoke(..., context={...})``), then its
``config["configurable"]`` (langmem's way), read at each call so that one compiled agent
keeps each user's memories apart (:class:`cogmem.scope.NamespaceTemplate`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from langgraph.config import get_config
from langgraph.runtime import get_runtime

from cogmem.scope import NamespaceTemplate

__all__ = ["namespace_for", "run_values"]


def run_values(runtime: Any = None) -> dict[str, Any]:
    """The values of the current run by name: ``config["configurable"]``, overridden by the
    runtime's context (a mapping, a dataclass or a pydantic model). Outside a run: none.

    Args:
        runtime: The run's ``Runtime`` when the caller has it (middleware hooks); default
            the one of the current run.
    """
    try:
        config = get_config()
    except RuntimeError:  # not inside a LangGraph run
        return dict(_as_mapping(getattr(runtime, "context", None)))
    configurable = config.get("configurable") or {}
    values = {k: v for k, v in configurable.items() if not k.startswith("__")}
    if runtime is None:
        runtime = get_runtime()
    values.update(_as_mapping(getattr(runtime, "context", None)))
    return values


def namespace_for(template: NamespaceTemplate) -> str | Callable[[], str]:
    """The namespace, or a callable that fills the template from the current run."""
    if template.fixed:
        return template.template
    return lambda: template.fill(run_values())


def _as_mapping(context: Any) -> Mapping[str, Any]:
    if context is None:
        return {}
    if isinstance(context, Mapping):
        return context
    if dataclasses.is_dataclass(context) and not isinstance(context, type):
        return {f.name: getattr(context, f.name) for f in dataclasses.fields(context)}
    dump = getattr(context, "model_dump", None)  # a pydantic model
    if callable(dump):
        return dict(dump())
    return {k: v for k, v in vars(context).items() if not k.startswith("_")}
