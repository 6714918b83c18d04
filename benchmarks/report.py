"""Runs the benchmarks, saves their JSON, draws the plots and writes ``docs/benchmarks.md``.

Each benchmark script is run unchanged, as a subprocess of this Python, from the project root;
its stdout (one JSON object) is saved as ``DIR/<name>.json`` and its progress (stderr) passes
through. ``DIR/meta.json`` records, per benchmark, the command, when it ran, how long it took,
the commit and whether ``core/`` had uncommitted changes, and the machine. A benchmark that is
skipped keeps its previous JSON and meta entry, so the page always shows the latest figures of
each, each with its own provenance. Then the PNG plots are drawn into ``DIR`` and the page is
rendered from whatever JSON ``DIR`` holds.

Run from the project root::

    python benchmarks/report.py                  # everything: quality + speed 10k/100k (~1 h)
    python benchmarks/report.py --no-speed       # quality only (~25 min on 2 cores)
    python benchmarks/report.py --quick          # quality + the speed smoke test (N = 2,000)
    python benchmarks/report.py --only scifact,locomo
    python benchmarks/report.py --from docs/benchmarks   # no runs: re-render from saved JSON

``DIR`` is ``--out`` (default ``docs/benchmarks``, committed with the page so that ``--from``
reproduces it). Exit status 1 if a benchmark failed (its old JSON, if any, is kept).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.report_scale import (
    disk_section,
    namespace_section,
    scale_section,
    serve_section,
)
from benchmarks.report_versions import pairs_section, versions_section, versions_targets

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "benchmarks"
DEFAULT_PAGE = ROOT / "docs" / "benchmarks.md"

#: name -> script arguments (relative to the project root). Run in this order.
QUALITY: dict[str, list[str]] = {
    "locomo": ["benchmarks/locomo.py"],
    "updates": ["benchmarks/updates.py"],
    "corrections": ["benchmarks/corrections.py"],
    "versions": [
        "benchmarks/versions.py",
        "--paths",
        "semantic,default,episodic-default,middleware",
    ],
    "versions_dev2": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/dev2.jsonl",
        "--fillers",
        "benchmarks/data/versions/dev2_fillers.jsonl",
    ],
    "versions_dev3": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/dev3.jsonl",
        "--fillers",
        "benchmarks/data/versions/dev3_fillers.jsonl",
    ],
    "versions_dev4": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/dev4.jsonl",
        "--fillers",
        "benchmarks/data/versions/dev4_fillers.jsonl",
        "--paths",
        "semantic,default,middleware",
    ],
    "versions_dev5": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/dev5.jsonl",
        "--fillers",
        "benchmarks/data/versions/dev5_fillers.jsonl",
        "--paths",
        "semantic,default,middleware",
    ],
    "versions_heldout": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/heldout.jsonl",
        "--fillers",
        "benchmarks/data/versions/heldout_fillers.jsonl",
    ],
    "versions_heldout2": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/heldout2.jsonl",
        "--fillers",
        "benchmarks/data/versions/heldout2_fillers.jsonl",
    ],
    "versions_heldout3": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/heldout3.jsonl",
        "--fillers",
        "benchmarks/data/versions/heldout3_fillers.jsonl",
        "--paths",
        "semantic,default,middleware",
    ],
    "versions_heldout4": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/heldout4.jsonl",
        "--fillers",
        "benchmarks/data/versions/heldout4_fillers.jsonl",
        "--paths",
        "semantic,default,middleware",
    ],
    "versions_heldout5": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/heldout5.jsonl",
        "--fillers",
        "benchmarks/data/versions/heldout5_fillers.jsonl",
        "--paths",
        "semantic,default,middleware",
    ],
    "versions_heldout6": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/heldout6.jsonl",
        "--fillers",
        "benchmarks/data/versions/heldout6_fillers.jsonl",
        "--paths",
        "semantic,default,middleware",
    ],
    "versions_heldout7": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/heldout7.jsonl",
        "--fillers",
        "benchmarks/data/versions/heldout7_fillers.jsonl",
        "--paths",
        "semantic,default,middleware",
    ],
    "versions_heldout8": [
        "benchmarks/versions.py",
        "--set",
        "benchmarks/data/versions/heldout8.jsonl",
        "--fillers",
        "benchmarks/data/versions/heldout8_fillers.jsonl",
        "--paths",
        "semantic,default,middleware",
    ],
    "pairs": ["benchmarks/pairs.py"],
    "write_speed": ["benchmarks/write_speed.py"],
    "decay_variants": ["benchmarks/decay_variants.py"],
    "lift_variants": ["benchmarks/lift_variants.py"],
    "lifecycle": ["benchmarks/lifecycle.py"],
    "scifact": ["benchmarks/scifact.py", "--variants"],
    "embedder": ["benchmarks/embedder.py"],
    "stage_costs": ["benchmarks/stage_costs.py", "--size", "10000"],
    "load": ["benchmarks/load.py", "--adds", "2000", "--searches", "2000"],
    "scale": ["benchmarks/scale.py"],
    "scale_namespace": ["benchmarks/scale_namespace.py"],
    "serve": ["benchmarks/serve.py"],
    "disk": ["benchmarks/disk.py"],
    "torture": ["benchmarks/torture.py"],
}
SPEED_FULL = ["benchmarks/speed.py", "--sizes", "10000,100000"]
SPEED_QUICK = ["benchmarks/speed.py", "--quick"]
ALL = [*QUALITY, "speed"]

SYSTEM_COLORS = {
    "cogmem": "#1f77b4",
    "chroma": "#7f7f7f",
    "langchain": "#2ca02c",
    "llamaindex": "#d62728",
}


# --------------------------------------------------------------------------- running


def _git(*cmd: str) -> str:
    proc = subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def machine_info() -> dict[str, Any]:
    """What the figures were measured on."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["ram_gb"] = round(int(line.split()[1]) / 1024**2, 1)
                break
    except OSError:
        pass
    try:
        import chromadb

        info["chromadb"] = chromadb.__version__
    except ImportError:  # pragma: no cover - chromadb is a dependency
        pass
    return info


def _parse_json(stdout: str) -> dict[str, Any]:
    """The JSON object a script printed (anything printed before it is ignored)."""
    decoder = json.JSONDecoder()
    for i, char in enumerate(stdout):
        if char == "{" and (i == 0 or stdout[i - 1] == "\n"):
            try:
                obj, _ = decoder.raw_decode(stdout[i:])
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                return obj
    raise ValueError("no JSON object on stdout")


def run_benchmark(name: str, args: list[str], out: Path, meta: dict[str, Any]) -> bool:
    """Runs one script, saves its JSON as ``out/<name>.json`` and its provenance in ``meta``."""
    command = [sys.executable, *args]
    shown = "python " + shlex.join(args)
    print(f"[report] {name}: {shown}", file=sys.stderr, flush=True)
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    proc = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, check=False)
    seconds = round(time.perf_counter() - t0, 1)
    try:
        result = _parse_json(proc.stdout)
    except ValueError:
        print(f"[report] {name}: FAILED (exit {proc.returncode}, no JSON)", file=sys.stderr)
        return False
    (out / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    meta[name] = {
        "command": shown,
        "started": started.isoformat(timespec="seconds"),
        "seconds": seconds,
        "exit_status": proc.returncode,
        "commit": _git("rev-parse", "--short", "HEAD") or None,
        "uncommitted_in_core": _git("status", "--porcelain", "--", "core").splitlines(),
        "machine": machine_info(),
    }
    print(f"[report] {name}: done in {seconds} s", file=sys.stderr, flush=True)
    return proc.returncode == 0


# --------------------------------------------------------------------------- plots


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _split(key: str) -> tuple[str, str]:
    mode, _, decay = key.partition("/")
    return mode, decay


def _quality_rows(
    cogmem: dict[str, Any], peers: dict[str, Any], metric: str, extra: dict[str, Any]
) -> list[tuple[str, float | None, float | None]]:
    """(label, decay on, decay off) per system; peers and references only have one figure."""
    rows: list[tuple[str, float | None, float | None]] = []
    modes = dict.fromkeys(_split(k)[0] for k in cogmem)
    for mode in modes:
        on = cogmem.get(f"{mode}/decay_on", {}).get(metric)
        off = cogmem.get(f"{mode}/decay_off", {}).get(metric)
        rows.append((f"cogmem {mode}", on, off))
    for name, value in peers.items():
        rows.append((name, value.get(metric), None))
    for name, value in extra.items():
        rows.append((name, value.get(metric), None))
    return rows


def plot_quality(
    rows: list[tuple[str, float | None, float | None]],
    metric: str,
    title: str,
    path: Path,
    target: float | None = None,
) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(rows) + 1.4))
    height = 0.38
    labels = [r[0] for r in rows]
    ys = range(len(rows))
    for y, (label, on, off) in zip(ys, rows):
        ours = label.startswith("cogmem")
        if on is not None:
            shift = -height / 2 if off is not None else 0.0
            color = "#1f77b4" if ours else "#9a9a9a"
            ax.barh(y + shift, on, height, color=color)
            ax.text(on + 0.005, y + shift, f"{on:.3f}", va="center", fontsize=8)
        if off is not None:
            ax.barh(y + height / 2, off, height, color="#aec7e8")
            ax.text(off + 0.005, y + height / 2, f"{off:.3f}", va="center", fontsize=8)
    if target is not None:
        ax.axvline(target, color="#d62728", linestyle="--", linewidth=1)
        ax.text(target, len(rows) - 0.4, f" target {target}", color="#d62728", fontsize=8)
    ax.set_yticks(list(ys), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel(metric)
    ax.set_title(title, fontsize=10)
    from matplotlib.patches import Patch

    fig.legend(
        handles=[
            Patch(color="#1f77b4", label="cogmem, decay on (default)"),
            Patch(color="#aec7e8", label="cogmem, decay off"),
            Patch(color="#9a9a9a", label="peer / reference"),
        ],
        loc="lower center",
        ncol=3,
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout(rect=(0, 0.4 / (0.42 * len(rows) + 1.4), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_variants(variants: dict[str, Any], path: Path) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for i, (name, v) in enumerate(variants.items()):
        x, y = v["locomo_recall@10_decay_on"], v["updates_current_first"]
        ax.scatter(x, y, color="#1f77b4" if name == "default" else "#7f7f7f", zorder=3)
        offset = (4, 3) if i % 2 == 0 else (4, -10)  # neighbours often share a point
        ax.annotate(name, (x, y), textcoords="offset points", xytext=offset, fontsize=7)
    ax.axhline(0.90, color="#d62728", linestyle="--", linewidth=1)
    ax.annotate(
        "updates target 0.90",
        (0, 0.90),
        xycoords=("axes fraction", "data"),
        xytext=(4, 3),
        textcoords="offset points",
        color="#d62728",
        fontsize=8,
    )
    ax.set_xlabel("LoCoMo recall@10 (decay on)")
    ax.set_ylabel("knowledge updates: current version first")
    ax.set_title("Scoring variants: both figures at once (top right is better)", fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


SPEED_PANELS = (
    ("search p50 (ms, top 10, log)", lambda s: s["search"]["p50"], True),
    ("add throughput (memories/s)", lambda s: s["add_per_s"], False),
    ("peak RSS (MiB)", lambda s: s["rss_peak_mb"], False),
    ("add one, then search: p50 (ms, log)", lambda s: s["add_then_search"]["p50"], True),
)


def plot_speed(speed: dict[str, Any], path: Path) -> None:
    plt = _plt()
    sizes = sorted(speed["sizes"], key=int)
    systems = list(speed["sizes"][sizes[-1]]["systems"])
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    width = 0.8 / len(sizes)
    for ax, (title, get, log) in zip(axes.flat, SPEED_PANELS):
        for i, size in enumerate(sizes):
            for j, system in enumerate(systems):
                data = speed["sizes"][size]["systems"].get(system)
                if data is None:
                    continue
                value = get(data)
                x = j + (i - (len(sizes) - 1) / 2) * width
                ax.bar(
                    x,
                    value,
                    width,
                    color=SYSTEM_COLORS.get(system, "#7f7f7f"),
                    alpha=0.45 + 0.55 * (i + 1) / len(sizes),
                    edgecolor="black",
                    linewidth=0.4,
                )
                ax.text(
                    x,
                    value,
                    f"{value:,.0f}" if value >= 10 else f"{value:.1f}",
                    ha="center",
                    va="bottom",
                    fontsize=7,
                )
        ax.set_xticks(range(len(systems)), systems)
        ax.set_title(title, fontsize=10)
        if log:
            ax.set_yscale("log")
        ax.margins(y=0.15)
    label = " / ".join(f"{int(s):,}" for s in sizes)
    fig.suptitle(f"Speed at N = {label} memories (lighter bar: smaller N)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------- page


def _load(out: Path, name: str) -> dict[str, Any] | None:
    path = out / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    def cell(v: Any) -> str:
        if v is None:
            return "–"
        if isinstance(v, bool):
            return "**pass**" if v else "**FAIL**"
        if isinstance(v, float):
            if abs(v) < 1:
                return f"{v:.3f}"
            return f"{v:,.1f}" if abs(v) < 100 else f"{v:,.0f}"
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines


def _fmt(v: Any) -> str:
    return f"{v:,.3f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def targets_rows(data: dict[str, dict[str, Any] | None]) -> list[tuple[str, str, str, Any]]:
    """(benchmark, target, measured, pass) for every target a JSON states."""
    rows: list[tuple[str, str, str, Any]] = []
    if (d := data.get("locomo")) and (t := d.get("targets")):
        rows.append(
            (
                "LoCoMo",
                "hybrid recall@10 ≥ best peer + 0.05",
                f"{_fmt(t['hybrid_recall@10'])} vs {_fmt(t['best_peer_recall@10'])} "
                f"(+{_fmt(t['margin'])})",
                t["margin_at_least_0.05"],
            )
        )
        rows.append(
            (
                "LoCoMo",
                "decay costs ≤ 0.02 recall@10",
                _fmt(t["cost_of_decay"]),
                t["cost_of_decay_at_most_0.02"],
            )
        )
    if d := data.get("updates"):
        value = d["current_first"].get("hybrid/decay_on")
        rows.append(
            ("Updates", "current version first ≥ 0.90", _fmt(value), d.get("target_at_least_0.90"))
        )
    rows += versions_targets(data)
    if d := data.get("corrections"):
        for name, r in d["sets"].items():
            rows.append(
                (
                    f"Corrections ({name})",
                    "kept ≥ 0.99, current first ≥ 0.95, merged ≥ 0.95",
                    f"{_fmt(r['kept'])} / {_fmt(r['current_first'])} / {_fmt(r['merged'])}",
                    all(d["targets"][name].values()),
                )
            )
    if (d := data.get("lifecycle")) and (t := d.get("targets")):
        rows.append(
            (
                "Lifecycle",
                "consolidation shrinks the active set",
                f"{d['store']['memories']:,} → {d['store']['active_after']:,}",
                t["active set shrinks"],
            )
        )
        rows.append(
            (
                "Lifecycle",
                "deep recall recall@10 within 0.02 of unconsolidated",
                f"gap {_fmt(t['gap'])}",
                t["deep recall recall@10 within 0.02 of unconsolidated"],
            )
        )
    if (d := data.get("scifact")) and (t := d.get("targets")):
        rows.append(
            (
                "SciFact",
                f"hybrid nDCG@10 ≥ {_fmt(t['target'])}",
                f"{_fmt(t['hybrid_ndcg@10'])} (best peer {t['best_peer']} "
                f"{_fmt(t['best_peer_ndcg@10'])})",
                t["reached"],
            )
        )
    if d := data.get("torture"):
        t = d["total"]
        rows.append(
            (
                "Torture",
                "acknowledged adds lost, wrong values, unnamed errors, stores lost: all 0",
                f"{t['lost']} / {t['wrong']} / {t['unnamed']} / {t['failed_for_good']} "
                f"over {t['trials']} trials",
                d["all_zero"],
            )
        )
    if d := data.get("embedder"):
        best = max(d["dynamic"]["sentences_per_s"])
        rows.append(("Embedder", "≥ 500 sentences/s (int8)", _fmt(best), d["target_500_per_s"]))
    if d := data.get("speed"):
        noise = speed_noise(d, data.get("speed_repeat"))
        for size in sorted(d["sizes"], key=int):
            for name, t in d["sizes"][size].get("targets", {}).items():
                if name.startswith("info:"):  # older runs also listed informational rows
                    continue
                margin = abs(t["limit"] - t["value"]) / t["limit"] if t["limit"] else None
                said = f"{_fmt(t['value'])} (limit {_fmt(t['limit'])}"
                if margin is not None and noise is not None:
                    said += f"; margin {margin:.0%}"
                    if margin < noise:
                        said += f", within the {noise:.0%} run-to-run noise"
                rows.append((f"Speed {int(size):,}", name, said + ")", t["pass"]))
    return rows


def speed_noise(run: Any, repeat: Any) -> float | None:
    """The run-to-run noise of the speed targets: the largest relative difference of one
    target's value between two runs of the same code at the same size (``None`` without a
    second run)."""
    if not repeat:
        return None
    diffs = []
    for size, measured in repeat.get("sizes", {}).items():
        first = run["sizes"].get(size, {}).get("targets", {})
        for name, t in measured.get("targets", {}).items():
            if name in first and not name.startswith("info:"):
                a, b = first[name]["value"], t["value"]
                if a and b:
                    diffs.append(abs(a - b) / ((a + b) / 2))
    return max(diffs) if diffs else None


def render_page(out: Path, page: Path, render_command: str) -> str:
    names = ALL
    data = {name: _load(out, name) for name in names}
    data["speed_repeat"] = _load(out, "speed-repeat")  # a second run of the same code
    meta_path = out / "meta.json"
    meta: dict[str, Any] = (
        json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
    )
    rel = Path(os.path.relpath(out, page.parent)).as_posix()
    lines: list[str] = ["# Benchmarks", ""]
    lines += [
        "Every figure on this page comes from the JSON files in "
        f"[`{rel}/`]({rel}/) and was rendered by",
        "",
        "```bash",
        render_command,
        "```",
        "",
        "To measure again and re-render (runs every benchmark below, ~1 h on 2 cores; "
        "`--no-speed` skips the 10k/100k speed run, `--only NAME,...` picks benchmarks):",
        "",
        "```bash",
        "make bench        # = .venv/bin/python benchmarks/report.py",
        "```",
        "",
        "The evaluation data is read from `$COGMEM_DATA` (default `~/.cache/cogmem/data`; "
        "`make data` downloads it there). "
        "Each benchmark's own command, date, commit and machine are listed under "
        "[Provenance](#provenance).",
        "",
    ]
    machines = {json.dumps(m.get("machine", {}), sort_keys=True) for m in meta.values()}
    if len(machines) == 1 and (m := json.loads(machines.pop())):
        lines += [
            f"**Machine:** {m.get('cpus')} CPUs ({m.get('cpu', 'unknown model')}), "
            f"{m.get('ram_gb')} GB RAM, Python {m.get('python')}, chromadb "
            f"{m.get('chromadb')}, {m.get('platform')}. The 2 cores are shared with other "
            "work, so timings carry noise of tens of percent; quality figures are "
            "deterministic up to Chroma's HNSW build.",
            "",
        ]

    rows = targets_rows(data)
    if rows:
        lines += ["## Targets", "", "As each benchmark's JSON states them:", ""]
        lines += _table(["benchmark", "target", "measured", "pass"], rows)
        lines += [""]

    if d := data.get("locomo"):
        lines += [
            "## LoCoMo (dev): recall over long conversations",
            "",
            f"{d['questions']} questions (the dev split); each turn an episodic memory "
            "created at its session's date, every question searched one day after the last "
            "session. Every system gets the same all-MiniLM-L6-v2 vectors "
            f"(`{d['embedder']}`). Peers: LangChain `EnsembleRetriever` (BM25 + Chroma, "
            "0.5/0.5; `-words`: BM25 over lowercase `\\w+` tokens instead of its default "
            "whitespace split), LlamaIndex `QueryFusionRetriever` (reciprocal rerank, BM25 + "
            "Chroma), LangChain `TimeWeightedVectorStoreRetriever`, bare Chroma. The two "
            "hybrids fuse a dense and a BM25 list of k = 10 each, as their users set them "
            "(cogmem's lists are 50 deep); `@50` rows give them lists of 50, k = 10 returned.",
            "",
            "![LoCoMo recall@10](" + rel + "/locomo.png)",
            "",
        ]
        table = []
        for key, v in d["cogmem"].items():
            mode, decay = _split(key)
            o = v["overall"]
            table.append(
                (
                    f"cogmem {mode}",
                    decay.replace("_", " "),
                    o["recall@5"],
                    o["recall@10"],
                    o["hit@5"],
                    o["hit@10"],
                )
            )
        for name, o in {
            **d.get("peers", {}),
            "BM25Okapi (reference)": d.get("reference_bm25okapi", {}),
        }.items():
            if o:
                table.append((name, "–", o["recall@5"], o["recall@10"], o["hit@5"], o["hit@10"]))
        lines += _table(["system", "decay", "recall@5", "recall@10", "hit@5", "hit@10"], table)
        cats = d["cogmem"].get("hybrid/decay_on", {}).get("by_category", {})
        if cats:
            lines += ["", "recall@10 by question category:", ""]
            systems = {
                "cogmem hybrid, decay on": d["cogmem"]["hybrid/decay_on"],
                "cogmem hybrid, decay off": d["cogmem"].get("hybrid/decay_off", {}),
                **d.get("peers", {}),
            }
            systems = {k: v for k, v in systems.items() if v.get("by_category")}
            lines += _table(
                ["system", *[f"{c} (n={cats[c]['n']})" for c in cats]],
                [
                    (name, *[v.get("by_category", {}).get(c, {}).get("recall@10") for c in cats])
                    for name, v in systems.items()
                ],
            )
        lines += [""]

    if d := data.get("updates"):
        lines += [
            "## Knowledge updates",
            "",
            f"{d['cases']} cases, all in one store as semantic memories created days before "
            "the search; a case succeeds when its current version is in the top 10 above every "
            "stale version there.",
            "",
        ]
        cf = d["current_first"]
        modes = dict.fromkeys(_split(k)[0] for k in cf)
        lines += _table(
            ["mode", "decay on", "decay off"],
            [(m, cf.get(f"{m}/decay_on"), cf.get(f"{m}/decay_off")) for m in modes],
        )
        lines += [""]

    lines += versions_section(data, _table)
    lines += pairs_section(data, _table)
    if d := data.get("corrections"):
        lines += [
            "## Corrections and restatements: write-time dedup",
            "",
            "Every case's writes in one store, oldest first, each through `write` (what `add` "
            "does) with a generated id and the default config. A correction changes one detail "
            "of an earlier write: it must be **kept** (stored) and come **current first** among "
            "the case's texts in the top 10; a restatement says the same again (case, "
            "punctuation, a framing phrase): it must be **merged**. `dev` is the evaluation "
            "data's set; each `generated-N` is built by `benchmarks/corrections.py` from "
            "templates, names and framing phrases the dev set does not use (seed N). Cases "
            "share texts (in the dev set every case about the team standup), so another case "
            "can tell a case's old text again after its correction; what was said last then "
            "comes first, and that case counts as missed.",
            "",
        ]
        lines += _table(
            ["set", "cases", "kept", "current first", "merged", "missed"],
            [
                (
                    name,
                    r["cases"],
                    r["kept"],
                    r["current_first"],
                    r["merged"],
                    ", ".join(r["missed"]) or "–",
                )
                for name, r in d["sets"].items()
            ],
        )
        lines += [""]

    if d := data.get("decay_variants"):
        lines += [
            "## Scoring variants",
            "",
            "Every scoring variant tried, each measured on LoCoMo and the updates at once "
            "(see [decay.md](decay.md)); `default` is what ships.",
            "",
            "![scoring variants](" + rel + "/decay_variants.png)",
            "",
        ]
        lines += _table(
            ["variant", "what", "LoCoMo R@10 decay on", "decay off", "updates current first"],
            [
                (
                    n,
                    v["what"],
                    v["locomo_recall@10_decay_on"],
                    v["locomo_recall@10_decay_off"],
                    v["updates_current_first"],
                )
                for n, v in d["variants"].items()
            ],
        )
        lines += [""]

    if d := data.get("lift_variants"):
        lines += [
            "## Lifting recall: the variants measured",
            "",
            "Each candidate change to the defaults, on all four sets at once; one may ship only "
            f"if it brings LoCoMo to {d['locomo_target']} and lowers none of the others against "
            "`before` (`wins`). The made-up conversation (`benchmarks/data/conversation`) was "
            "tuned on by none.",
            "",
        ]
        lines += _table(
            [
                "variant",
                "what",
                "LoCoMo R@10",
                "SciFact nDCG@10",
                "updates",
                "made-up R@10",
                "wins",
            ],
            [
                (
                    n,
                    v["what"],
                    v["locomo_recall@10"],
                    v["scifact_ndcg@10"],
                    v["updates_current_first"],
                    v["made_up_recall@10"],
                    "yes" if v["wins"] else "–",
                )
                for n, v in d["variants"].items()
            ],
        )
        lines += [""]

    if d := data.get("load"):
        c = d["counts"]
        lines += [
            "## Load: several processes on one served memory",
            "",
            f"{d['workers']} processes share one collection on a local `chroma run` server "
            f"({d['server']}), {c['adds_requested']:,} adds and {d['search']['n']:,} searches "
            f"interleaved, {d['embedder']}.",
            "",
        ]
        lines += _table(
            [
                "ops/s",
                "add p50 ms",
                "add p99 ms",
                "search p50 ms",
                "search p99 ms",
                "errors",
                "acknowledged",
                "stored (Chroma / cogmem)",
            ],
            [
                (
                    d["throughput_ops_per_s"],
                    d["add"]["p50_ms"],
                    d["add"]["p99_ms"],
                    d["search"]["p50_ms"],
                    d["search"]["p99_ms"],
                    d["errors"],
                    c["adds_acknowledged"],
                    f"{c['chroma_count']} / {c['cogmem_count']}",
                )
            ],
        )
        lines += [""]

    if d := data.get("stage_costs"):
        lines += [
            "## What each retrieval stage costs",
            "",
            f"Search at N = {d['size']:,} in one in-process store, {d['queries']} queries, each "
            "searched with the stages off and with each stage on in a rotating order, with the "
            "model-free stand-ins of `benchmarks/stand_ins.py` (so only cogmem's own work is "
            "timed: a real model adds its own latency). `off_again` is a second stages-off run: "
            "what is off costs nothing beyond its noise.",
            "",
        ]
        lines += _table(
            ["configuration", "p50 ms", "mean ms", "p50 / off"],
            [
                (name, v["p50_ms"], v["mean_ms"], v["p50_over_off"])
                for name, v in d.items()
                if isinstance(v, dict)
            ],
        )
        lines += [""]

    if d := data.get("lifecycle"):
        s = d["store"]
        lines += [
            "## Lifecycle: consolidation and deep recall",
            "",
            f"LoCoMo consolidated {_fmt(d['days_after_last_session'])} days after each "
            f"conversation's last session: {s['memories']:,} memories → {s['active_after']:,} "
            f"active ({s['groups']:,} groups into {s['summaries']:,} summaries, "
            f"{s['superseded']:,} originals superseded), in {d['consolidate_seconds']} s.",
            "",
        ]
        lines += _table(
            ["search", "recall@5", "recall@10", "hit@10"],
            [(k, v["recall@5"], v["recall@10"], v["hit@10"]) for k, v in d["recall"].items()],
        )
        lines += [""]

    if d := data.get("scifact"):
        lines += [
            "## SciFact: scientific claims against 5,183 abstracts",
            "",
            f"BEIR SciFact, the {d['queries']} claims of the **{d['split']}** qrels "
            f"({d['judgements']} judgements) against all {d['documents']:,} abstracts; "
            f"nDCG@{d['k']}. Each abstract one semantic memory (`{d['document_text']}`), all "
            "created on the same day (so decay can only scale scores, not reorder them). Same "
            "vectors for every system. Published BM25 (Anserini, BEIR) on the *test* split: "
            f"{_fmt(d.get('targets', {}).get('published_bm25_test_split', 0.665))}. The "
            "peers' hybrids fuse lists of k = 10 each as their users set them; `@50` rows "
            "give them lists of 50 (cogmem's depth).",
            "",
            "![SciFact nDCG@10](" + rel + "/scifact.png)",
            "",
        ]
        table = []
        for key, v in d["cogmem"].items():
            mode, decay = _split(key)
            table.append(
                (
                    f"cogmem {mode}",
                    decay.replace("_", " "),
                    v["ndcg@10"],
                    v["recall@10"],
                    v["timing"].get("search_p50_ms"),
                )
            )
        refs = {
            "BM25Okapi (reference)": d.get("reference_bm25okapi"),
            "exact cosine (dense ceiling)": d.get("reference_dense_exact"),
        }
        for name, v in {**d.get("peers", {}), **refs}.items():
            if v:
                table.append(
                    (
                        name,
                        "–",
                        v["ndcg@10"],
                        v["recall@10"],
                        v.get("timing", {}).get("search_p50_ms"),
                    )
                )
        lines += _table(["system", "decay", "nDCG@10", "recall@10", "search p50 (ms)"], table)
        lines += [
            "",
            f"cogmem is searched {d.get('cogmem_search_top_k')} deep (its first 10 are "
            f"exactly a top-10 search), the peers {d.get('peer_search_top_k')}; so search "
            "times are not like for like here — see Speed.",
            "",
        ]
        if variants := d.get("variants"):
            lines += [
                "<details><summary>Diagnostic variants (<code>--variants</code>)</summary>",
                "",
            ]
            lines += _table(
                ["variant", "nDCG@10", "recall@10"],
                [(n, v["ndcg@10"], v["recall@10"]) for n, v in variants.items()],
            )
            lines += ["", "</details>", ""]

    if d := data.get("speed"):
        sizes = sorted(d["sizes"], key=int)
        largest = sizes[-1]
        lines += [
            "## Speed",
            "",
            "All systems on a Chroma `PersistentClient` in a temporary folder on "
            f"{d['settings'].get('store_filesystem', 'local disk')}, fed the same precomputed "
            f"random unit vectors (dimension {d['settings']['dimension']}; the query "
            "embedding is not timed), texts and queries from SciFact/LoCoMo so BM25 behaves "
            "as on real data. Peers rebuild their BM25 index on every `add()`, as their users "
            "must. Each system runs in its own subprocess; the subprocesses take turns one step "
            "at a time (an add batch, a search, an add-then-search repetition), so every system "
            "is timed over the same minutes of this machine, whose speed drifts. cogmem's "
            "searches with and without reinforcement are timed interleaved, query by query "
            "(the first of the two alternating), so neither runs on caches the other warmed; "
            "p95 and mean show what p50 hides (a write-behind flush lands in the tail). Each "
            "peer searches as its users configure it: LangChain's `EnsembleRetriever` and "
            "LlamaIndex's `QueryFusionRetriever` fuse a dense and a BM25 list of k = 10 each "
            "(cogmem's lists are 50 deep); the quality sections show the peers at depth 50 "
            "too.",
            "",
            "![speed](" + rel + "/speed.png)",
            "",
        ]
        for size in sizes:
            systems = d["sizes"][size]["systems"]
            lines += [f"**N = {int(size):,}**", ""]
            table = []
            for name, s in systems.items():
                table.append(
                    (
                        name,
                        s["search"]["p50"],
                        s["search"]["p95"],
                        s["search"].get("mean_ms"),
                        s.get("search_reinforce", {}).get("p50"),
                        s["add_per_s"],
                        s["add_then_search"]["p50"],
                        s["add_then_search"].get("add_p50"),
                        s["open"]["open_to_first_search_s"],
                        s["rss_peak_mb"],
                        s.get("disk_mb"),
                    )
                )
            lines += _table(
                [
                    "system",
                    "search p50 ms",
                    "p95 ms",
                    "mean ms",
                    "p50 ms, reinforce=True",
                    "add/s",
                    "add+search p50 ms",
                    "of which add ms",
                    "open→first search s",
                    "peak RSS MiB",
                    "disk MB",
                ],
                table,
            )
            lines += [""]
        cog = d["sizes"][largest]["systems"].get("cogmem", {})
        chroma = d["sizes"][largest]["systems"].get("chroma", {})
        if cog and chroma:
            ats = cog["add_then_search"]
            lines += [
                f"Reading the add-then-search column (N = {int(largest):,}): cogmem holds a "
                "small add (indexed in memory at once, journaled on a folder store) and writes "
                "it to Chroma with the next ones, in groups of up to 64 or after a second, so its "
                f"add p50 is {_fmt(ats.get('add_p50'))} ms and its mean over the repetitions, "
                f"which includes those group writes, {_fmt(ats.get('add_mean_ms'))} ms; bare "
                "Chroma's own one-record add on the same disk takes "
                f"{_fmt(chroma['add_then_search'].get('add_p50'))} ms. The peers' "
                "add-then-search is dominated by rebuilding their BM25 index from all N "
                "documents. Each repetition also times a search with no add before it: cogmem's "
                f"p50 there is {_fmt(ats.get('search_alone_p50'))} ms, against "
                f"{_fmt(ats.get('search_p50'))} ms for the search right after an add.",
                "",
            ]
        src = d.get("cogmem_source", {})
        if src:
            dirty = src.get("uncommitted_in_core") or []
            lines += [
                f"Measured on cogmem at commit `{src.get('commit')}`"
                + (f" with {len(dirty)} uncommitted file(s) under core/" if dirty else "")
                + f"; the whole run took {d.get('elapsed_s', 0) / 60:.0f} min.",
                "",
            ]
        if (repeat := data.get("speed_repeat")) and (noise := speed_noise(d, repeat)):
            again = repeat.get("cogmem_source", {}).get("commit")
            lines += [
                f"A second run of the code at `{again}` is saved as [speed-repeat.json]"
                f"({rel}/speed-repeat.json); the largest difference of one target's value "
                f"between the two runs, {noise:.0%}, is the run-to-run noise the Targets table "
                "measures each margin against.",
                "",
            ]

    if d := data.get("embedder"):
        lines += [
            "## Embedder",
            "",
            f"The default offline embedder over the {d['texts']:,} LoCoMo dev turns, three "
            "passes each after a warm-up, sentences per second:",
            "",
        ]
        lines += _table(
            ["model", "model id", "sentences/s (3 runs)"],
            [
                (q, d[q]["model_id"], ", ".join(f"{r:,.0f}" for r in d[q]["sentences_per_s"]))
                for q in ("dynamic", "none")
                if q in d
            ],
        )
        lines += ["", "`dynamic` is the default int8 model, `none` the float model.", ""]

    lines += scale_section(data, _table)
    lines += namespace_section(data, _table)
    lines += serve_section(data, _table)
    lines += disk_section(data, _table)

    if d := data.get("torture"):
        lines += [
            "## Torture",
            "",
            "Faults on folder stores, each trial checked against what the writer was told had "
            "succeeded (`benchmarks/torture.py`): a derived file damaged (the records, the BM25 "
            "file, the vector file, or one copy of a dead writer's journal; a few random bytes, "
            "one bit, a zeroed 4 KiB block, the file cut short or gone), the writer killed "
            "(SIGKILL) at a random moment, or a disk filled up to around the reserve while it "
            "writes; ids deleted and added again with a crash after (`reuse`), Chroma failing "
            "writes before or after applying them (`chroma`), adds racing `close()` (`close`), "
            "a memory dropped unclosed and reopened (`drop`), both journal copies cut, deleted "
            "or garbled apart (`journal`), `chroma.sqlite3` emptied or deleted (`chroma_file`), "
            "the lock's files damaged under a writer (`lock`), and, where the run has it, a "
            "writer over five namespaces that keeps two open (`tenants`). Every count but "
            "the named errors and the losses reported by count (both journal copies damaged, "
            "where no copy holds them; each counted at every one of its trial's three checks) "
            "must be 0.",
            "",
        ]
        keys = ("trials", "lost", "reported_lost", "wrong", "unnamed", "failed_for_good")
        families = [k for k, v in d.items() if isinstance(v, dict) and "trials" in v]
        lines += _table(
            [
                "faults",
                "trials",
                "adds lost",
                "lost and reported",
                "wrong values",
                "unnamed errors",
                "stores lost",
            ],
            [(name, *(d[name].get(k, 0) for k in keys)) for name in families],
        )
        named = d["total"].get("named_errors_seen", {})
        if named:
            seen = ", ".join(f"{k} {v:,}" for k, v in named.items())
            lines += ["", f"Named errors the writers and reopenings met (expected): {seen}."]
        lines += [""]

    lines += ["## Provenance", ""]
    prov = []
    for name in names:
        m = meta.get(name)
        if m is None:
            prov.append((name, "not run" if data.get(name) is None else "unknown", "", "", ""))
            continue
        dirty = m.get("uncommitted_in_core")
        commit = m.get("commit") or "not recorded"
        if dirty:
            commit += f" + {len(dirty)} uncommitted in core/"
        prov.append((name, f"`{m['command']}`", m.get("started", ""), m.get("seconds"), commit))
    lines += _table(["benchmark", "command", "started (UTC)", "seconds", "cogmem commit"], prov)
    notes = [m["note"] for m in meta.values() if m.get("note")]
    if notes:
        lines += [""] + [f"* {n}" for n in dict.fromkeys(notes)]
    lines += [""]
    return "\n".join(lines)


def render(out: Path, page: Path, render_command: str) -> None:
    """Draws the plots into ``out`` and writes the page."""
    locomo = _load(out, "locomo")
    if locomo:
        plot_quality(
            _quality_rows(
                _overall(locomo)["cogmem"],
                locomo.get("peers", {}),
                "recall@10",
                {"BM25Okapi (reference)": locomo.get("reference_bm25okapi", {})},
            ),
            "recall@10",
            f"LoCoMo dev: recall@10 ({locomo['questions']} questions)",
            out / "locomo.png",
        )
    scifact = _load(out, "scifact")
    if scifact:
        plot_quality(
            _quality_rows(
                scifact["cogmem"],
                scifact.get("peers", {}),
                "ndcg@10",
                {
                    "BM25Okapi (reference)": scifact.get("reference_bm25okapi") or {},
                    "exact cosine": scifact.get("reference_dense_exact") or {},
                },
            ),
            "nDCG@10",
            f"SciFact ({scifact['split']} qrels, {scifact['queries']} claims): nDCG@10",
            out / "scifact.png",
            target=scifact.get("targets", {}).get("target"),
        )
    variants = _load(out, "decay_variants")
    if variants:
        plot_variants(variants["variants"], out / "decay_variants.png")
    speed = _load(out, "speed")
    if speed:
        plot_speed(speed, out / "speed.png")
    page.write_text(render_page(out, page, render_command), encoding="utf-8")


def _overall(result: dict[str, Any]) -> dict[str, Any]:
    """LoCoMo JSON keeps cogmem's figures under ``overall``; flatten for the quality plot."""
    flat = dict(result)
    flat["cogmem"] = {k: v["overall"] for k, v in result["cogmem"].items()}
    return flat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where JSON and PNGs go")
    parser.add_argument("--page", type=Path, default=DEFAULT_PAGE, help="the Markdown page")
    parser.add_argument(
        "--from", dest="from_dir", type=Path, help="run nothing: render from the JSON in DIR"
    )
    parser.add_argument("--no-speed", action="store_true", help="skip speed.py")
    parser.add_argument(
        "--quick", action="store_true", help="speed.py --quick (N = 2,000) instead of 10k/100k"
    )
    parser.add_argument("--only", default="", help="comma-separated, from: " + ", ".join(ALL))
    args = parser.parse_args(argv)

    shown = "python benchmarks/report.py" + (" " + shlex.join(argv or sys.argv[1:])).rstrip()
    if args.from_dir is not None:
        out = args.from_dir.resolve()
        if not out.is_dir():
            parser.error(f"--from {args.from_dir}: not a directory")
        render(out, args.page.resolve(), shown)
        print(f"[report] wrote {args.page} from {out}", file=sys.stderr)
        return 0

    only = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(only) - set(ALL))
    if unknown:
        parser.error(f"unknown benchmarks {unknown}; known: {ALL}")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    meta_path = out / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
    plan = dict(QUALITY)
    if not args.no_speed:
        plan["speed"] = SPEED_QUICK if args.quick else SPEED_FULL
    if only:
        plan = {n: a for n, a in plan.items() if n in only}
    failed = []
    for name, script_args in plan.items():
        if not run_benchmark(name, script_args, out, meta):
            failed.append(name)
        meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    render(out, args.page.resolve(), shown)
    print(f"[report] wrote {args.page} and the plots in {out}", file=sys.stderr)
    if failed:
        print(f"[report] failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
