"""Errors the LlamaIndex adapters raise on their own account.

Everything else (a bad cogmem filter value, an unknown memory type, a failing embedder, ...) is
raised by the core as the matching :class:`cogmem.CogmemError` subclass and passes through the
adapters unchanged.
"""

from __future__ import annotations

from cogmem import InvalidInputError

__all__ = ["NodeMetadataError", "UnsupportedFilterError"]


class UnsupportedFilterError(InvalidInputError):
    """A LlamaIndex ``MetadataFilters`` cannot be expressed as a cogmem filter.

    cogmem filters are a conjunction (AND) of per-field conditions; the message names the
    filter (key and operator) that has no cogmem equivalent and what would work instead.
    """


class NodeMetadataError(InvalidInputError):
    """A node's metadata holds a value the retention postprocessor cannot read.

    The message names the node id, the metadata key and the value (e.g. a timestamp that is
    neither ISO 8601 text, a ``datetime`` nor epoch seconds, or an importance outside [0, 1]).
    """
