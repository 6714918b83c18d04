"""The page's sections on scale for ``benchmarks/report.py``: many users in one process
(``benchmarks/scale.py``), one large namespace (``benchmarks/scale_namespace.py``), many
processes on one server (``benchmarks/serve.py``) and where a store's bytes go
(``benchmarks/disk.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["disk_section", "namespace_section", "scale_section", "serve_section"]

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


def namespace_section(data: Any, table: Table) -> list[str]:
    """Rows per size: one namespace in cogmem's folder store beside bare Chroma + bm25s."""
    d = data.get("scale_namespace")
    if not d:
        return []
    lines = [
        "## One large namespace",
        "",
        f"One namespace of semantic memories ({d['words_per_text']} words from a Zipf "
        f"vocabulary of {d['vocabulary']:,}, {d['embedder']}), in cogmem's folder store and in "
        "bare Chroma with a bm25s index beside it, fused by reciprocal rank "
        f"(`benchmarks/scale_namespace.py`). Medians of {d['rounds']} fresh processes each, "
        f"taking turns; searches: p50 / p95 of {d['queries']} after the first.",
        "",
    ]
    rows = []
    for size, r in d["sizes"].items():
        for name, s in r["systems"].items():
            rows.append(
                (
                    f"{int(size):,}",
                    name,
                    s["open_to_first_search_s"],
                    f"{s['search_p50_ms']} / {s['search_p95_ms']}",
                    s["peak_rss_mb"],
                    s.get("close_s") or "–",
                    r["disk_mb"][name],
                )
            )
    lines += table(
        [
            "memories",
            "system",
            "open to first search s",
            "search ms",
            "peak RSS MB",
            "close s",
            "disk MB",
        ],
        rows,
    )
    growth = d.get("growth", {})
    if growth:
        lines += [
            "",
            "Growth exponents (`value ∝ size^b`): "
            + "; ".join(
                f"{name} search {g['search_p50_ms']}, open {g['open_to_first_search_s']}"
                for name, g in growth.items()
            )
            + ".",
        ]
    return [*lines, ""]


def serve_section(data: Any, table: Table) -> list[str]:
    """The server simulation (``benchmarks/serve.py``): one row per app process."""
    d = data.get("serve")
    if not d:
        return []
    lines = [
        "## Many processes on one Chroma server",
        "",
        f"{d['tenants']:,} users of {d['per_tenant']} memories in one `chroma run`, each a "
        f"namespace of one store; for {d['seconds']:.0f} s, {d['writers']} writer processes "
        f"write {d['rate']:.0f} memories/s each to {d['active']:,} users online, and "
        f"{d['readers']} reader processes serve those users (a router sends user n to reader "
        "n mod readers), look for every announced write until found, and search between "
        f"announcements; app processes under a file limit of {d['app_files']:,} "
        f"(`benchmarks/serve.py`, {d['embedder']}). Build: "
        + ", ".join(f"{b:.0f}" for b in d["build_seconds_per_thousand"])
        + " s per thousand users. Freshness lag: acknowledged to found in another process, "
        "announcement and the reader's queue included. Missing: acknowledged writes a reader "
        f"could not get by id afterwards (all of them, every user): {d['missing']}; errors: "
        f"{d['errors']}. Server RSS {d['server_rss_mb']:,.0f} MB.",
        "",
    ]
    rows: list[Sequence[Any]] = []
    for n, w in enumerate(d["writers_report"]):
        rows.append((f"writer {n}", f"add {_pct(w['add_ms'])}", "–", "–", "–", w["rss_mb"]))
    for n, r in enumerate(d["readers_report"]):
        s = r["search_ms"]
        rows.append(
            (
                f"reader {n} ({r['users_served']:,} users)",
                _pct(r["freshness_lag_ms"]),
                f"{r['found_by_first_search']:.3f}",
                " · ".join(_pct(s[k]) for k in ("repeat", "after_write", "cold")),
                r["missing"],
                r["rss_mb"],
            )
        )
    lines += table(
        [
            "process",
            "freshness lag ms p50/p95 (writer: add ms)",
            "found by first search",
            "search ms: repeat · after a write · cold",
            "missing",
            "RSS MB",
        ],
        rows,
    )
    return [*lines, ""]


def disk_section(data: Any, table: Table) -> list[str]:
    """What a folder store holds beyond bare Chroma with the same memories, part by part."""
    d = data.get("disk")
    if not d:
        return []
    total = d["disk_mb"]
    lines = [
        "## Where the bytes go",
        "",
        f"One namespace of {d['size']:,} memories, {d['embedder']}, the same ids, texts and "
        f"vectors in cogmem's folder store and in bare Chroma (`benchmarks/disk.py`): "
        f"{total['cogmem']:,.1f} MB against {total['chroma']:,.1f} MB, {d['ratio']:.2f}×. "
        "What cogmem holds beyond bare Chroma, by part:",
        "",
    ]
    extra = sum(v for v in d["extra_mb"].values() if v > 0)
    rows = [
        (part, f"{mb:,.1f}", f"{mb / extra:.0%}") for part, mb in d["extra_mb"].items() if mb > 0
    ]
    lines += table(["part", "MB beyond bare Chroma", "share of the extra"], rows)
    return [*lines, ""]
