"""cogmem.plot: each chart draws the numbers cogmem computes, on the axes it returns."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from matplotlib.container import BarContainer

from cogmem import CogmemError, CognitiveMemory, CognitiveMemoryConfig, InvalidInputError, plot
from cogmem.retention import initial_stability, retention_at
from cogmem.testing import HashingEmbedder
from tests.conftest import NOW


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


@pytest.fixture
def store(embedder: HashingEmbedder) -> Iterator[CognitiveMemory]:
    memory = CognitiveMemory(embedder=embedder)
    memory.add_many(
        [
            {
                "text": "the billing database is postgres",
                "memory_type": "semantic",
                "id": "old",
                "created_at": NOW - timedelta(days=300),
            },
            {
                "text": "the billing database is cockroach now",
                "memory_type": "semantic",
                "id": "new",
                "created_at": NOW - timedelta(days=2),
            },
            {
                "text": "we talked about the billing database",
                "id": "ep",
                "created_at": NOW - timedelta(days=40),
            },
            {
                "text": "deploy billing with make release",
                "memory_type": "procedural",
                "id": "how",
                "created_at": NOW - timedelta(days=90),
            },
        ],
        now=NOW,
    )
    memory.supersede("old", "new")
    yield memory
    memory.close()


def _containers(ax: plt.Axes) -> list[BarContainer]:
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def test_explanations_stack_score_decay_and_penalties_up_to_relevance(
    store: CognitiveMemory,
) -> None:
    results = store.search("billing database", now=NOW, reinforce=False, deep_recall=True, top_k=4)
    assert any(r.explanation.penalties for r in results)  # the superseded one: deep_recall
    ax = plot.explanations(results)

    containers = _containers(ax)
    labels = [c.get_label() for c in containers]
    assert labels[:2] == ["score (kept)", "decay (1 − R^α)"]
    assert "deep_recall penalty" in labels
    assert all(len(c.patches) == len(results) for c in containers)
    for i, r in enumerate(results):
        widths = [c.patches[i].get_width() for c in containers]
        assert widths[0] == pytest.approx(r.score)
        assert widths[1] == pytest.approx(
            r.explanation.relevance * (1 - r.explanation.decay_factor)
        )
        assert sum(widths) == pytest.approx(r.explanation.relevance)
        lefts = [c.patches[i].get_x() for c in containers]
        assert lefts[0] == 0 and lefts[1] == pytest.approx(widths[0])
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks[0].startswith("1. ") and results[0].text[:20] in ticks[0]
    assert ax.yaxis_inverted()  # best on top
    assert ax.get_legend() is not None


def test_explanations_draw_on_the_axes_given_and_say_when_empty() -> None:
    _, (left, right) = plt.subplots(1, 2)
    assert plot.explanations([], ax=right) is right
    assert [t.get_text() for t in right.texts] == ["no results"]
    assert not left.has_data()
    with pytest.raises(TypeError):
        plot.explanations(["not a result"])  # type: ignore[list-item]


def test_retention_curves_plot_retention_for_each_type_and_importance() -> None:
    config = CognitiveMemoryConfig()
    ax = plot.retention_curves(config, importances=(0.2, 0.5, 0.9), days=365)
    lines = ax.get_lines()
    assert len(lines) == 4 * 3
    assert [line.get_label() for line in lines[:3]] == [
        "episodic, importance 0.2",
        "episodic, importance 0.5",
        "episodic, importance 0.9",
    ]
    for line in lines:
        memory_type, importance_text = line.get_label().split(", importance ")
        importance = float(importance_text)
        xs, ys = line.get_xdata(), line.get_ydata()
        assert xs[0] == 0 and xs[-1] == 365
        s0 = initial_stability(importance, config)
        for x, y in zip(xs[::50], ys[::50]):
            assert y == pytest.approx(retention_at(x, memory_type, s0, importance, config))
    procedural = [line for line in lines if line.get_label().startswith("procedural")]
    assert all(min(line.get_ydata()) == 1.0 for line in procedural)
    episodic_02, episodic_09 = lines[0].get_ydata()[100], lines[2].get_ydata()[100]
    assert episodic_02 < episodic_09  # importance slows forgetting


def test_retention_curves_follow_the_config() -> None:
    power = CognitiveMemoryConfig(decay_model="power")
    ax = plot.retention_curves(power, types=["semantic"], importances=[0.5], days=100)
    (line,) = ax.get_lines()
    s0 = initial_stability(0.5, power)
    assert line.get_ydata()[-1] == pytest.approx(retention_at(100, "semantic", s0, 0.5, power))
    assert "power" in ax.get_title()


def test_spaced_recall_beats_massed_recall_and_never_recalled() -> None:
    ax = plot.spaced_recall(memory_type="semantic", importance=0.5, days=365)
    never, massed, spaced = ax.get_lines()
    assert never.get_label() == "never recalled"
    assert massed.get_label().startswith("recalled on days 1, 2, 3")
    assert spaced.get_label().startswith("recalled on days 7, 21, 60")
    final = {line: line.get_ydata()[-1] for line in (never, massed, spaced)}
    assert final[never] < final[massed] < final[spaced]
    # stability in the label: S grows with spacing (0.1 · min(2, Δt/7) per recall)
    assert spaced.get_label().endswith("(stability 0.75)")
    # a recall restarts decay: R is 1 right after day 21
    xs, ys = list(spaced.get_xdata()), list(spaced.get_ydata())
    at = [i for i, x in enumerate(xs) if x == 21]
    assert len(at) == 2 and ys[at[0]] < 1.0 and ys[at[1]] == 1.0
    dots = ax.collections
    assert len(dots) == 2 and len(dots[1].get_offsets()) == 3


def test_spaced_recall_takes_one_schedule_or_several() -> None:
    ax = plot.spaced_recall(recalls=[30, 10], days=60)
    _, recalled = ax.get_lines()
    assert recalled.get_label().startswith("recalled on days 10, 30")
    ax = plot.spaced_recall(recalls={"weekly": [7, 14, 21, 28]}, days=60)
    assert ax.get_lines()[1].get_label().startswith("weekly")
    with pytest.raises(InvalidInputError, match="recall days"):
        plot.spaced_recall(recalls=[400], days=365)


def test_retention_histogram_counts_every_memory_by_type(store: CognitiveMemory) -> None:
    store.add("a note for another user", namespace="u2", now=NOW)
    ax = plot.retention_histogram(store, now=NOW + timedelta(days=30), bins=5)
    containers = _containers(ax)
    legend = ax.get_legend()
    assert legend is not None
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == ["episodic (2)", "semantic (2)", "procedural (1)"]
    by_label = dict(zip(labels, containers))
    assert all(len(c.patches) == 5 for c in containers)
    assert sum(p.get_height() for c in containers for p in c.patches) == 5
    # procedural memories never decay: all in the top bin
    assert [p.get_height() for p in by_label["procedural (1)"].patches] == [0, 0, 0, 0, 1]

    ax = plot.retention_histogram(store, namespace="u2", now=NOW)
    (only,) = _containers(ax)
    assert [p.get_height() for p in only.patches] == [0] * 9 + [1]
    assert "namespace 'u2'" in ax.get_title()


def test_retention_histogram_of_an_empty_store(embedder: HashingEmbedder) -> None:
    with CognitiveMemory(embedder=embedder) as empty:
        ax = plot.retention_histogram(empty, now=NOW)
    assert [t.get_text() for t in ax.texts] == ["no memories"]


def test_bad_arguments_are_cogmem_errors_naming_them() -> None:
    with pytest.raises(InvalidInputError, match="types must be among"):
        plot.retention_curves(types=["dream"])
    with pytest.raises(InvalidInputError, match="importance"):
        plot.retention_curves(importances=[1.5])
    with pytest.raises(InvalidInputError, match="days"):
        plot.retention_curves(days=0)
    with pytest.raises(CogmemError, match="config"):
        plot.spaced_recall(config="default")  # type: ignore[arg-type]


def test_without_matplotlib_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(plot.PlotDependencyError) as info:
        plot.retention_curves()
    assert isinstance(info.value, ImportError) and isinstance(info.value, CogmemError)
    # The install from the checkout: the bare PyPI name is an unrelated project.
    message = str(info.value)
    assert "pip install '.[plot]' in the cogmem checkout" in message
    assert "not 'cogmem[plot]' from PyPI" in message


def test_importing_cogmem_and_its_plot_module_does_not_import_matplotlib() -> None:
    code = "import sys, cogmem, cogmem.plot; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
