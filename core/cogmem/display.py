"""How results look in a notebook: Markdown for Jupyter's rich display (``_repr_markdown_``,
as pandas and rich objects give), so that a search's results show as a table with each
score's reason, not as a long dataclass repr."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .records import Explanation, SearchResult

__all__ = ["SearchResults", "explanation_markdown", "result_markdown", "results_markdown"]

_TEXT_CHARS = 160


class SearchResults(list["SearchResult"]):
    """The results of one search, best first: a ``list`` of
    :class:`~cogmem.records.SearchResult` that shows as a table in a notebook."""

    def _repr_markdown_(self) -> str:
        return results_markdown(self)


def _cell(text: str, limit: int | None = _TEXT_CHARS) -> str:
    """``text`` made safe for one Markdown table cell (one line, pipes escaped, shortened to
    ``limit`` characters)."""
    flat = " ".join(text.split())
    if limit is not None and len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return flat.replace("|", "\\|")


def explanation_markdown(explanation: Explanation) -> str:
    """An explanation as one line of Markdown (its ``str``, in code)."""
    return f"`{str(explanation).replace('`', chr(39))}`"


def result_markdown(result: SearchResult) -> str:
    """One result: score, type, text, and why."""
    m = result.memory
    return (
        f"**{result.score:.4f}** · [{m.memory_type}] {_cell(m.text)}  \n"
        f"{explanation_markdown(result.explanation)}"
    )


def results_markdown(results: Iterable[SearchResult]) -> str:
    """Results as a Markdown table: rank, score, type, status, text, id, why."""
    rows = [
        "| # | score | type | status | text | id | why |",
        "|---:|---:|---|---|---|---|---|",
    ]
    for rank, r in enumerate(results, start=1):
        m = r.memory
        rows.append(
            f"| {rank} | {r.score:.4f} | {m.memory_type} | {m.status} | {_cell(m.text)} | "
            f"`{m.id}` | {_cell(str(r.explanation), limit=None)} |"
        )
    if len(rows) == 2:
        return "*No memories found.*"
    return "\n".join(rows)
