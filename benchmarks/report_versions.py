"""The page's section on the newest truth first (``benchmarks/versions.py``,
``benchmarks/pairs.py`` and ``benchmarks/write_speed.py``), for ``benchmarks/report.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["pairs_section", "versions_section", "versions_targets"]

Table = Callable[[Sequence[str], Iterable[Sequence[Any]]], list[str]]
_METRICS = ("current_first", "kept", "merged", "linked", "own_first")
_PATHS = ("semantic", "default", "episodic-default", "middleware")
_SETS = (
    "versions",
    "versions_dev2",
    "versions_dev3",
    "versions_dev4",
    "versions_dev5",
    "versions_heldout",
    "versions_heldout2",
    "versions_heldout3",
    "versions_heldout4",
    "versions_heldout5",
    "versions_heldout6",
    "versions_heldout7",
    "versions_heldout8",
)


def _share(result: dict[str, Any], metric: str) -> Any:
    found = result.get(metric)
    return found["share"] if found else "–"


def versions_targets(data: Any) -> list[tuple[str, str, str, Any]]:
    """Rows of the targets table: one per set and write path."""
    rows = []
    for name in _SETS:
        if not (d := data.get(name)):
            continue
        for path, result in d["paths"].items():
            if path == "episodic-default":
                continue
            bar = 0.95 if path == "semantic" else 0.90
            merges = path != "middleware"  # it stores every exchange as itself
            shares = {m: _share(result, m) for m in _METRICS[:4]}
            passed = (
                shares["current_first"] >= bar
                and shares["kept"] >= 1.0
                and shares["linked"] <= 0.05
                and (not merges or shares["merged"] >= 0.75)
            )
            rows.append(
                (
                    f"Newest first ({d['set']}, {path})",
                    f"current first ≥ {bar}, kept 1.0, "
                    + ("merged ≥ 0.75, " if merges else "")
                    + "linked ≤ 0.05",
                    " / ".join(str(shares[m]) for m in _METRICS[:4] if merges or m != "merged"),
                    passed,
                )
            )
    if d := data.get("write_speed"):
        rows.append(
            (
                "write p50 / add p50 (dedup off), 10k",
                "≤ 1.5",
                str(d["p50_ratio"]),
                d["target_p50_ratio_at_most_1.5"],
            )
        )
    return rows


def versions_section(data: Any, table: Table) -> list[str]:
    """The section: every share by write path, and by style for every set."""
    lines: list[str] = []
    sets = [data[n] for n in _SETS if data.get(n)]
    if not sets:
        return lines
    lines += [
        "## The newest truth first",
        "",
        "`benchmarks/versions.py`: each case in a store of its own among 40 unrelated memories, "
        "its statements written oldest first at their own time, its questions asked a day after "
        "the last (`top_k=10`). **current first**: a correction's question recalls the newest "
        "statement before the older ones; **kept**: no statement of a correction, look-alike "
        "or profile merged away; **merged**: a restatement merged into the first statement; "
        "**linked**: a look-alike linked as a version (lower is better); **own first**: the "
        "fact a look-alike's or profile's question asks for comes first among the case's "
        'statements. Paths: `semantic` (`write(text, memory_type="semantic")`), `default` '
        "(`write(text)`, the type read from the text), `episodic-default` (the same with the "
        "earlier default type, for comparison), `middleware` (each statement and question a "
        "turn of a `create_agent` agent with `CognitiveMemoryMiddleware`, defaults; what it "
        "puts in the system message is scored; it stores every exchange as itself, so nothing "
        "merges). The dev sets (`benchmarks/data/versions/dev.jsonl`, 373 cases; "
        "`dev2.jsonl`, 225 cases, written after `heldout2.jsonl`; `dev3.jsonl`, 240 cases; "
        "`dev4.jsonl`, 356 cases, restatements of form and corrections in the same forms; "
        "`heldout5.jsonl`, 374 cases, held out until 27 November 2026; `heldout6.jsonl`, 350 "
        "cases, held out until 28 November 2026; `dev5.jsonl`, 330 cases, restatements of 20 "
        "kinds, corrections and look-alikes in their forms, written after `heldout8.jsonl`) "
        "and the held-out sets (`heldout.jsonl`, 244 cases; `heldout2.jsonl`, 259 cases; "
        "`heldout3.jsonl`, 333 cases; `heldout4.jsonl`, 313 cases; `heldout7.jsonl`, 350 "
        "cases; `heldout8.jsonl`, 335 cases) were written by thirteen "
        "separate writers who saw neither the mechanism nor each other's cases; the dev sets "
        "are tuned on, the held-out sets were never looked at case by case (the cases that "
        "lost a write were: one of heldout4, one of heldout7; see "
        "`benchmarks/data/versions/README.md`).",
        "",
    ]
    for d in sets:
        lines += [f"**{d['set']}** ({d['cases']} cases)", ""]
        lines += table(
            ["path", *_METRICS],
            [
                (path, *(_share(d["paths"][path], m) for m in _METRICS))
                for path in _PATHS
                if path in d["paths"]
            ],
        )
        lines += [""]
    for d in sets:  # every set's shares by style, `semantic` path
        if "semantic" not in d["paths"]:
            continue
        semantic = d["paths"]["semantic"]
        styles = sorted({s for m in _METRICS if m in semantic for s in semantic[m]["by_style"]})
        lines += [f"By style, {d['set']}, `semantic` path:", ""]
        lines += table(
            ["style", *_METRICS],
            [
                (
                    style,
                    *(
                        semantic[m]["by_style"].get(style, "–") if m in semantic else "–"
                        for m in _METRICS
                    ),
                )
                for style in styles
            ],
        )
        lines += [""]
    if d := data.get("write_speed"):
        lines += [
            f"Cost of a write at {d['size']:,} memories (`benchmarks/write_speed.py`, real "
            f"model, {d['writes']} writes taking turns): `write` with the defaults p50 "
            f"{d['write']['p50_ms']} ms (p95 {d['write']['p95_ms']}), `add` with dedup off "
            f"and the type given p50 {d['add_dedup_off']['p50_ms']} ms (p95 "
            f"{d['add_dedup_off']['p95_ms']}): ratio {d['p50_ratio']}.",
            "",
        ]
        if cold := d.get("cold"):
            lines += [
                "The same in a fresh process on the two stores reopened (a restart: the "
                "neighbours a write compares itself with are read anew): `write` p50 "
                f"{cold['write']['p50_ms']} ms, `add` p50 {cold['add_dedup_off']['p50_ms']} ms: "
                f"ratio {cold['p50_ratio']}.",
                "",
            ]
    return lines


def pairs_section(data: Any, table: Table) -> list[str]:
    """What dedup does with the second statement of a pair (``benchmarks/pairs.py``)."""
    if not (d := data.get("pairs")):
        return []
    lines = [
        f"`benchmarks/pairs.py` ({d['set']}, {d['pairs']} pairs written blind to the "
        "mechanism, as an attacker of write-time dedup would; each pair in a store of its own, "
        "the second ten days after the first): **lost**, a look-alike (both true at once, the "
        "same names and numbers) merged into the first (must be 0); **linked**, a look-alike "
        "stored as its newer version; **merged**, a restatement merged; **updated**, an "
        "update stored as the newer version. The set found the merges fixed on 2026-11-27, "
        "so it is a development set.",
        "",
    ]
    rows = []
    for path in ("semantic", "default"):
        if r := d.get(path):
            lost = r["lookalike"]["lost"]
            rows.append(
                (
                    path,
                    lost["share"],
                    r["lookalike"]["linked"]["share"],
                    r["restatement"]["merged"]["share"],
                    r["update"]["updated"]["share"],
                    ", ".join(lost["ids"]) or "–",
                )
            )
    lines += table(["path", "lost", "linked", "merged", "updated", "lost ids"], rows)
    lines += [""]
    if semantic := d.get("semantic"):  # every kind's share, `semantic` path
        for group, shares in (
            ("lookalike", ("lost", "linked")),
            ("restatement", ("merged",)),
            ("update", ("updated",)),
        ):
            kinds = semantic[group][shares[0]]["by_kind"]
            lines += [f"By kind, {group}s, `semantic` path:", ""]
            lines += table(
                ["kind", *shares],
                [(k, *(semantic[group][s]["by_kind"][k] for s in shares)) for k in kinds],
            )
            lines += [""]
    return lines
