"""Lazy exports for the adapter packages: a name is imported from its module on first use
(PEP 562), so that importing an adapter package never imports its framework by itself, and a
missing framework is named with how to install it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .wording import install_hint

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str,
    modules: Mapping[str, tuple[str, Sequence[str]]],
    public: Sequence[str],
    extra: str,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``.

    Args:
        package: The package's ``__name__``.
        modules: Each module of the package -> (the distribution it needs, the names it
            exports).
        public: The package's ``__all__``.
        extra: The install extra that brings those distributions (``"langchain"``).
    """
    namespace = importlib.import_module(package).__dict__
    owner = {name: (module, dist) for module, (dist, names) in modules.items() for name in names}

    def getattr_(name: str) -> Any:
        if name not in owner:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, distribution = owner[name]
        try:
            module = importlib.import_module(f".{module_name}", package)
        except ImportError as exc:
            raise ImportError(
                f"{package}.{name} needs {distribution} ({exc}); "
                f"install the adapters with: {install_hint(extra)}"
            ) from exc
        value = getattr(module, name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(public))

    return getattr_, dir_
