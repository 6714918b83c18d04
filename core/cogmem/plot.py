"""One-line charts of scores and forgetting curves (matplotlib: the ``plot`` extra).

Every function draws on ``ax`` when given (else on a new figure) and returns the
:class:`matplotlib.axes.Axes` it drew on (its figure is ``ax.figure``):

* :func:`explanations`: what each result's score is made of, as stacked bars whose length is
  the result's relevance: the part kept (the score), the part decay took (``1 − R^α``) and the
  part each penalty took.
* :func:`retention_curves`: retention R over time without recall, per type and importance.
* :func:`spaced_recall`: R of one memory recalled on given days, against never recalled.
* :func:`retention_histogram`: how retained the memories of a store are now, by type.

matplotlib is imported when a function is called, never by ``import cogmem``; without it the
functions raise :class:`PlotDependencyError` saying what to install.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from .checks import check_unit_interval
from .config import CognitiveMemoryConfig
from .errors import CogmemError, InvalidInputError, InvalidTypeError
from .inspection import retentions
from .memory import CognitiveMemory
from .records import MEMORY_TYPES, MemoryRecord, MemoryType, SearchResult
from .retention import initial_stability, reinforce, retention, retention_at
from .wording import counted, install_hint

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "PlotDependencyError",
    "explanations",
    "retention_curves",
    "retention_histogram",
    "spaced_recall",
]

INSTALL_HINT = install_hint("plot")
TYPE_COLOURS: Mapping[str, str] = {
    "episodic": "tab:blue",
    "semantic": "tab:orange",
    "procedural": "tab:green",
    "core": "tab:red",
}
_PENALTY_COLOURS = ("tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")
_IMPORTANCE_STYLES = (":", "--", "-", "-.")
_EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)


class PlotDependencyError(CogmemError, ImportError):
    """matplotlib is not installed (the ``plot`` extra, see :func:`cogmem.wording.install_hint`)."""


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    """``ax``, or the axes of a new figure."""
    if ax is not None:
        return ax
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise PlotDependencyError(
            f"cogmem.plot draws with matplotlib, which is not installed: {INSTALL_HINT}"
        ) from exc
    _, new = plt.subplots(figsize=figsize, layout="constrained")
    return new


def _config(config: CognitiveMemoryConfig | None) -> CognitiveMemoryConfig:
    if config is None:
        return CognitiveMemoryConfig()
    if not isinstance(config, CognitiveMemoryConfig):
        raise InvalidTypeError(
            f"config must be a CognitiveMemoryConfig, got {type(config).__name__}"
        )
    return config


def _days(days: object) -> float:
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not days > 0:
        raise InvalidInputError(f"days must be a number > 0, got {days!r}")
    return float(days)


def _types(types: Sequence[str]) -> list[MemoryType]:
    if isinstance(types, str):
        types = [types]
    known = [t for t in MEMORY_TYPES if t in types]
    if not types or len(known) != len(set(types)):
        raise InvalidInputError(
            f"types must be among {', '.join(MEMORY_TYPES)}; got {list(types)!r}"
        )
    return [next(k for k in MEMORY_TYPES if k == t) for t in types]


def _label(rank: int, text: str, width: int) -> str:
    flat = " ".join(text.split())
    return f"{rank}. {flat if len(flat) <= width else flat[: width - 1] + '…'}"


# ---------------------------------------------------------------------- explanations
def explanations(
    results: Sequence[SearchResult], *, ax: Axes | None = None, label_width: int = 40
) -> Axes:
    """Stacked horizontal bars decomposing each result's score, best result on top.

    A bar's full length is the result's relevance; its segments are, left to right, the score
    (what is kept), what decay took (``relevance · (1 − R^α)``) and what each penalty took
    (applied in turn, e.g. ``newer_version``), so the segments add up to the relevance.

    Args:
        results: Search results (``CognitiveMemory.search``), best first.
        ax: Axes to draw on; default a new figure.
        label_width: Characters of each memory's text shown as its label.

    Returns:
        The axes: one bar container per segment kind (``score``, ``decay``, then one per
        penalty), each with one bar per result, labelled for the legend.

    Raises:
        InvalidTypeError: ``results`` is not a list of ``SearchResult``.
        PlotDependencyError: matplotlib is missing.
    """
    if isinstance(results, SearchResult) or not isinstance(results, Sequence):
        raise InvalidTypeError("results must be a list of SearchResult")
    for r in results:
        if not isinstance(r, SearchResult):
            raise InvalidTypeError(f"results must hold SearchResult, got {type(r).__name__}")
    ax = _axes(ax, (10.0, 1.2 + 0.45 * max(1, len(results))))
    if not results:
        ax.text(0.5, 0.5, "no results", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax
    penalties = list(dict.fromkeys(n for r in results for n in r.explanation.penalties))
    segments: dict[str, list[float]] = {"score": [], "decay": []}
    segments.update({name: [] for name in penalties})
    for r in results:
        e = r.explanation
        kept = e.relevance * e.decay_factor
        segments["decay"].append(e.relevance - kept)
        for name in penalties:
            factor = float(e.penalties.get(name, 1.0))
            segments[name].append(kept * (1.0 - factor))
            kept *= factor
        segments["score"].append(kept)
    positions = list(range(len(results)))
    left = [0.0] * len(results)
    colours = {"score": "tab:green", "decay": "tab:orange"}
    colours.update(zip(penalties, _PENALTY_COLOURS * (1 + len(penalties))))
    for name, widths in segments.items():
        label = {
            "score": "score (kept)",
            "decay": "decay (1 − R^α)",
        }.get(name, f"{name} penalty")
        ax.barh(positions, widths, left=left, color=colours[name], label=label, height=0.6)
        left = [a + b for a, b in zip(left, widths)]
    ax.set_yticks(positions, [_label(i + 1, r.text, label_width) for i, r in enumerate(results)])
    ax.invert_yaxis()
    ax.set_xlabel("relevance = score + what decay and penalties took")
    ax.set_title("Why each result scored what it scored")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


# ---------------------------------------------------------------------- forgetting curves
def retention_curves(
    config: CognitiveMemoryConfig | None = None,
    *,
    types: Sequence[str] = MEMORY_TYPES,
    importances: Sequence[float] = (0.2, 0.5, 0.9),
    days: float = 365,
    points: int = 366,
    ax: Axes | None = None,
) -> Axes:
    """Retention R over ``days`` without recall, one line per type and importance.

    Each memory starts at its initial stability (``0.1 + 0.3 · importance`` by default); colour
    is the type, line style the importance.

    Args:
        config: The decay model and constants (default ``CognitiveMemoryConfig()``).
        types: Memory types to draw.
        importances: Importances to draw, each in [0, 1].
        days: Days on the x axis.
        points: Samples per line.
        ax: Axes to draw on; default a new figure.

    Returns:
        The axes, with ``len(types) · len(importances)`` lines in that order, each labelled
        ``"<type>, importance <i>"``.

    Raises:
        InvalidInputError: An unknown type, an importance outside [0, 1], ``days <= 0``.
        PlotDependencyError: matplotlib is missing.
    """
    cfg = _config(config)
    kinds = _types(types)
    levels = [check_unit_interval(i, "importance") for i in importances]
    if not levels:
        raise InvalidInputError("importances must not be empty")
    span = _days(days)
    if isinstance(points, bool) or not isinstance(points, int) or points < 2:
        raise InvalidInputError(f"points must be an integer >= 2, got {points!r}")
    ax = _axes(ax, (9.5, 4.5))
    xs = [span * i / (points - 1) for i in range(points)]
    for memory_type in kinds:
        for n, importance in enumerate(levels):
            stability = initial_stability(importance, cfg)
            ys = [retention_at(x, memory_type, stability, importance, cfg) for x in xs]
            ax.plot(
                xs,
                ys,
                color=TYPE_COLOURS[memory_type],
                linestyle=_IMPORTANCE_STYLES[n % len(_IMPORTANCE_STYLES)],
                label=f"{memory_type}, importance {importance:g}",
            )
    ax.set_xlim(0, span)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("days since last recall")
    ax.set_ylabel("retention R")
    ax.set_title(f"Retention without recall ({cfg.decay_model} decay)")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


def spaced_recall(
    config: CognitiveMemoryConfig | None = None,
    *,
    recalls: Sequence[float] | Mapping[str, Sequence[float]] | None = None,
    memory_type: str = "semantic",
    importance: float = 0.5,
    days: float = 365,
    points: int = 366,
    ax: Axes | None = None,
) -> Axes:
    """Retention of one memory recalled on given days, against the same memory never recalled.

    Each recall reinforces it as a search would (:func:`cogmem.retention.reinforce`: stability
    grows with the time since the last recall, so spaced recalls count more than massed ones)
    and restarts its decay; R is then 1.

    Args:
        config: The decay and reinforcement constants (default ``CognitiveMemoryConfig()``).
        recalls: Days of recall after the memory was formed: one schedule, or several by name.
            Default: ``{"recalled on days 1, 2, 3": ..., "recalled on days 7, 21, 60": ...}``
            (massed against spaced).
        memory_type: The memory's type.
        importance: Its importance.
        days: Days on the x axis.
        points: Samples per line (the recall days are added).
        ax: Axes to draw on; default a new figure.

    Returns:
        The axes: the first line is "never recalled", then one line per schedule labelled with
        its name and final stability; recalls are marked with dots (one collection per
        schedule).

    Raises:
        InvalidInputError: A recall day outside ``[0, days]``, a bad type or importance.
        PlotDependencyError: matplotlib is missing.
    """
    cfg = _config(config)
    (kind,) = _types([memory_type])
    level = check_unit_interval(importance, "importance")
    span = _days(days)
    if isinstance(points, bool) or not isinstance(points, int) or points < 2:
        raise InvalidInputError(f"points must be an integer >= 2, got {points!r}")
    if recalls is None:
        schedules: dict[str, list[float]] = {
            "recalled on days 1, 2, 3": [1, 2, 3],
            "recalled on days 7, 21, 60": [7, 21, 60],
        }
    elif isinstance(recalls, Mapping):
        schedules = {str(k): _recall_days(v, span) for k, v in recalls.items()}
    else:
        days_list = _recall_days(recalls, span)
        schedules = {"recalled on days " + ", ".join(f"{d:g}" for d in days_list): days_list}
    ax = _axes(ax, (8.0, 4.5))
    grid = [span * i / (points - 1) for i in range(points)]
    start = MemoryRecord(
        id="curve",
        text="curve",
        created_at=_EPOCH,
        memory_type=kind,
        importance=level,
        stability=initial_stability(level, cfg),
    )
    baseline = [retention(start, _at(x), cfg) for x in grid]
    ax.plot(grid, baseline, color="grey", linestyle="--", label="never recalled")
    colours = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
    for n, (name, schedule) in enumerate(schedules.items()):
        xs, ys, final, marks = _simulate(start, schedule, grid, cfg)
        colour = colours[n % len(colours)]
        ax.plot(xs, ys, color=colour, label=f"{name} (stability {final.stability:.2f})")
        ax.scatter([m[0] for m in marks], [m[1] for m in marks], color=colour, s=18, zorder=3)
    ax.set_xlim(0, span)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("days since the memory was formed")
    ax.set_ylabel("retention R")
    article = "an" if kind[0] in "aeiou" else "a"
    ax.set_title(f"Spaced recall: {article} {kind} memory at importance {level:g}")
    ax.legend(fontsize="small")
    return ax


def _at(day: float) -> datetime:
    return _EPOCH + timedelta(days=day)


def _recall_days(days: Sequence[float], span: float) -> list[float]:
    if isinstance(days, (str, bytes)) or not isinstance(days, Sequence):
        raise InvalidTypeError("recalls must be a list of days, or a dict of such lists")
    out = []
    for d in days:
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not 0 <= d <= span:
            raise InvalidInputError(f"recall days must be numbers in [0, {span:g}], got {d!r}")
        out.append(float(d))
    return sorted(out)


def _simulate(
    start: MemoryRecord,
    schedule: Sequence[float],
    grid: Sequence[float],
    cfg: CognitiveMemoryConfig,
) -> tuple[list[float], list[float], MemoryRecord, list[tuple[float, float]]]:
    """R along ``grid`` for a memory recalled on ``schedule``: a sawtooth (R just before each
    recall, then 1). Returns xs, ys, the final record and the (day, R before) of each recall."""
    memory = start
    xs: list[float] = []
    ys: list[float] = []
    marks: list[tuple[float, float]] = []
    pending = list(schedule)
    for x in sorted(set(grid) | set(schedule)):
        while pending and pending[0] <= x:
            day = pending.pop(0)
            before = retention(memory, _at(day), cfg)
            xs.append(day)
            ys.append(before)
            marks.append((day, before))
            memory = reinforce(memory, _at(day), cfg)
            xs.append(day)
            ys.append(retention(memory, _at(day), cfg))
        if not xs or xs[-1] != x:
            xs.append(x)
            ys.append(retention(memory, _at(x), cfg))
    return xs, ys, memory, marks


# ---------------------------------------------------------------------- a store
def retention_histogram(
    memory: CognitiveMemory,
    *,
    namespace: str | None = None,
    now: datetime | None = None,
    bins: int = 10,
    ax: Axes | None = None,
) -> Axes:
    """How retained a store's memories are at ``now``: a histogram of R stacked by type.

    Args:
        memory: The store (nothing in it changes).
        namespace: One namespace; default every namespace.
        now: When R is computed (default: the clock).
        bins: Bins over [0, 1].
        ax: Axes to draw on; default a new figure.

    Returns:
        The axes: one bar container per type present, each with ``bins`` bars whose heights
        are that type's counts.

    Raises:
        PlotDependencyError: matplotlib is missing.
    """
    if not isinstance(memory, CognitiveMemory):
        raise InvalidTypeError(f"memory must be a CognitiveMemory, got {type(memory).__name__}")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise InvalidInputError(f"bins must be an integer >= 1, got {bins!r}")
    values = {t: v for t, v in retentions(memory, namespace=namespace, now=now).items() if v}
    ax = _axes(ax, (8.0, 4.0))
    if not values:
        ax.text(0.5, 0.5, "no memories", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax
    edges = [i / bins for i in range(bins + 1)]
    ax.hist(
        list(values.values()),
        bins=edges,
        stacked=True,
        label=[f"{t} ({len(v)})" for t, v in values.items()],
        color=[TYPE_COLOURS[t] for t in values],
    )
    ax.set_xlim(0, 1)
    ax.set_xlabel("retention R")
    ax.set_ylabel("memories")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    where = "every namespace" if namespace is None else f"namespace {namespace!r}"
    total = counted(sum(map(len, values.values())), "memory", "memories")
    ax.set_title(f"Retention of {total} ({where})")
    ax.legend(fontsize="small")
    return ax
