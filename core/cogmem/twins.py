"""Async twins of blocking methods, with their real signatures."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

__all__ = ["awaitable"]

_S = TypeVar("_S")
_P = ParamSpec("_P")
_R = TypeVar("_R")


def awaitable(
    method: Callable[Concatenate[_S, _P], _R],
) -> Callable[Concatenate[_S, _P], Coroutine[Any, Any, _R]]:
    """The async twin of ``method``, with its signature: it runs ``method`` in a worker thread
    (``asyncio.to_thread``). cogmem's work is CPU-bound embedding and index reads plus Chroma
    calls that have no async API in-process; the memory's lock makes concurrent calls safe.

    The twin is named ``a<name>`` and its docstring points to ``method``.
    """

    @functools.wraps(method)
    async def twin(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await asyncio.to_thread(method, self, *args, **kwargs)

    twin.__name__ = twin.__qualname__ = f"a{method.__name__}"
    twin.__doc__ = f":meth:`{method.__name__}`, awaitable (run in a worker thread)."
    return twin
