"""The page's section on many users in one process (``benchmarks/scale.py``), for
``benchmarks/report.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["scale_section"]

Table = Callable[[Sequence[str], Iterable[Sequence[Any]]], list[str]]


def _pct(figure: dict[str, float] | None) -> str:
    return "–" if not figure else f"{figure['p50']:.1f} / {figure['p95']:.1f}"


def scale_section(data: Any, table: Table) -> list[str]:
    """Rows per size: cogmem's folder store and its LangGraph store beside bare Chroma."""
    d = data.get("scale")
    if not d:
        return []
    lines = [
        "## Many users",
        "",
        f"One namespace per user, {d['per_user']} memories each, {d['embedder']} "
        "(`benchmarks/scale.py`): cogmem's folder store, bare Chroma (one collection per user, "
        "a bm25s index per user built on its first search), and cogmem's LangGraph store, each "
        f"in a process of its own, under a file limit of {d.get('file_limit', '?')}. "
        f"Searches: {d['touch']:,} users not touched since the build "
        "(first), then the same search again (repeat); RSS and open files after them.",
        "",
    ]
    rows = []
    for users, systems in d["tenants"].items():
        for name, s in systems.items():
            if "failed" in s:
                rows.append((f"{int(users):,}", name, f"failed: {s['failed'][:80]}", *["–"] * 7))
                continue
            build = s.get("build_seconds_per_thousand") or []
            rows.append(
                (
                    f"{int(users):,}",
                    name,
                    ", ".join(f"{b:.0f}" for b in build) or "–",
                    _pct(s.get("first_search_ms") or s.get("search_ms")),
                    _pct(s.get("repeat_search_ms")),
                    _pct(s.get("list_namespaces_ms")),
                    s.get("rss_mb"),
                    s.get("open_files"),
                    s.get("close_seconds"),
                    s.get("disk_mb"),
                )
            )
    lines += table(
        [
            "users",
            "system",
            "build s per 1,000",
            "first search ms p50/p95",
            "repeat ms p50/p95",
            "list_namespaces ms",
            "RSS MB",
            "open files",
            "close s",
            "disk MB",
        ],
        rows,
    )
    return [*lines, ""]
