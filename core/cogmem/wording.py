"""How cogmem words what it tells people: counts of things, and how to install an extra."""

from __future__ import annotations

__all__ = ["counted", "install_hint"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one.

    Args:
        n: How many.
        noun: The singular noun.
        plural: Its plural when not ``noun + "s"``.

    >>> counted(1, "memory", "memories"), counted(3, "memory", "memories"), counted(0, "group")
    ('1 memory', '3 memories', '0 groups')
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def install_hint(extra: str) -> str:
    """How to install one of cogmem's extras: from its checkout or a wheel built from it.

        Never by the bare name: ``cogmem`` on PyPI is an unrelated project.

        >>> install_hint("plot")[:48]
    "pip install '.[plot]' in the cogmem checkout (or"
    """
    return (
        f"pip install '.[{extra}]' in the cogmem checkout (or 'path/to/cogmem.whl[{extra}]'); "
        f"not 'cogmem[{extra}]' from PyPI, an unrelated project"
    )
