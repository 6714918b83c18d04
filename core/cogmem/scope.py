"""Namespaces filled in per call: one agent serving many users.

A namespace may be given as a template, ``"user-{user_id}"``: each call fills it from what
the framework's run carries (LangGraph's ``runtime.context`` or ``config["configurable"]``,
as langmem's namespace templates do), so one compiled agent keeps each user's memories apart.
The adapters read those values; this module fills the template and checks the name. A
namespace without braces is the namespace itself.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from .checks import check_name
from .errors import InvalidInputError, InvalidTypeError

__all__ = ["NamespaceTemplate"]


class NamespaceTemplate:
    """A namespace, or a template of one to fill per call.

    Args:
        template: ``"ana"`` (a namespace), or ``"user-{user_id}"`` (named fields only).

    Raises:
        InvalidTypeError: Not a str.
        InvalidInputError: Not a valid name, or a field that is positional, converted or
            formatted (``{}``, ``{0}``, ``{x!r}``, ``{x:>3}``).
    """

    def __init__(self, template: str) -> None:
        if not isinstance(template, str):
            raise InvalidTypeError(f"namespace must be a str, got {type(template).__name__}")
        self.template = template
        try:
            parts = list(string.Formatter().parse(template))
        except ValueError as exc:
            raise InvalidInputError(f"namespace template {template!r}: {exc}") from exc
        fields: list[str] = []
        for _, field, spec, conversion in parts:
            if field is None:
                continue
            if not field.isidentifier() or spec or conversion:
                raise InvalidInputError(
                    f"namespace template {template!r}: each field must be a plain name, as "
                    "in 'user-{user_id}'"
                )
            fields.append(field)
        self.fields: tuple[str, ...] = tuple(dict.fromkeys(fields))
        if not self.fields:
            check_name(template, "namespace")

    def __repr__(self) -> str:
        return f"NamespaceTemplate({self.template!r})"

    @property
    def fixed(self) -> bool:
        """Whether it names one namespace (no field to fill)."""
        return not self.fields

    def fill(self, values: Mapping[str, object]) -> str:
        """The namespace for one call.

        Args:
            values: What the run carries, by name (a str, or an int).

        Raises:
            InvalidInputError: A field has no value, or one that is not a non-empty str or
                an int, or the namespace filled in is not a valid name (each names it).
        """
        if self.fixed:
            return self.template
        missing = [f for f in self.fields if f not in values]
        if missing:
            raise InvalidInputError(
                f"namespace template {self.template!r} needs {missing} for this call: pass "
                "them in the run's context (invoke(..., context={...})) or in "
                "config['configurable']"
            )
        filled: dict[str, str] = {}
        for field in self.fields:
            value = values[field]
            if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
                raise InvalidInputError(
                    f"namespace template {self.template!r}: {field} must be a non-empty str or "
                    f"an int, got {value!r}"
                )
            filled[field] = str(value)
        return check_name(self.template.format(**filled), "namespace")
