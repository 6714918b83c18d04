"""Retention, reinforcement and the retention-exponent score: design §2–3 and seed 001's tables."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import timedelta

import pytest

from cogmem import CognitiveMemoryConfig, MemoryRecord, half_life_days, retention_score
from cogmem.retention import (
    importance_boost,
    initial_stability,
    promote_if_core,
    reinforce,
    retention,
    retention_at,
)
from tests.conftest import NOW

CFG = CognitiveMemoryConfig()


def memory(**kw: object) -> MemoryRecord:
    base = MemoryRecord(id="m", text="x", created_at=NOW, stability=initial_stability(0.5, CFG))
    return replace(base, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("r", "expected"),
    [(1.0, 1.00), (0.8, 0.93), (0.6, 0.86), (0.4, 0.76), (0.2, 0.62), (0.1, 0.50), (0.02, 0.31)],
)
def test_seed_001_softening_table(r: float, expected: float) -> None:
    # the seed prints two decimals (0.8^0.3 = 0.9353 is shown as 0.93)
    assert abs(r**0.3 - expected) < 0.006


def test_seed_001_worked_example_old_relevant_beats_recent_marginal() -> None:
    recent = retention_score(0.6, 0.95, 0.3)
    old = retention_score(0.9, 0.25, 0.3)
    assert round(recent, 3) == 0.591
    assert round(old, 3) == 0.594
    assert old > recent
    assert retention_score(0.9, 0.25, 1.0) == pytest.approx(0.225)


def test_initial_stability_and_boost_follow_importance() -> None:
    assert initial_stability(0.0, CFG) == pytest.approx(0.1)
    assert initial_stability(0.5, CFG) == pytest.approx(0.25)
    assert initial_stability(1.0, CFG) == pytest.approx(0.4)
    assert importance_boost(0.0, CFG) == 1.0
    assert importance_boost(0.5, CFG) == 2.0
    assert importance_boost(1.0, CFG) == 3.0


@pytest.mark.parametrize(
    ("memory_type", "days"),
    # τ = S·B·β = 0.25 · 2 · β; half-life = τ ln 2
    [("episodic", 22.5 * math.log(2)), ("semantic", 120 * math.log(2)), ("core", 60 * math.log(2))],
)
def test_half_lives_the_defaults_imply(memory_type: str, days: float) -> None:
    assert half_life_days(memory_type, 0.5, CFG) == pytest.approx(days)
    floor = CFG.retention_floor[memory_type]
    assert retention_at(days, memory_type, 0.25, 0.5, CFG) == pytest.approx(max(0.5, floor))


def test_half_life_grows_with_importance_and_procedural_never_decays() -> None:
    assert half_life_days("semantic", 1.0, CFG) > half_life_days("semantic", 0.0, CFG)
    assert half_life_days("procedural", 0.5, CFG) == math.inf
    assert retention_at(10_000, "procedural", 0.1, 0.0, CFG) == 1.0


def test_power_model_half_life() -> None:
    cfg = CFG.replace(decay_model="power")
    days = half_life_days("semantic", 0.5, cfg)
    assert retention_at(days, "semantic", 0.25, 0.5, cfg) == pytest.approx(0.5)
    # the power law has a heavier tail than the exponential at equal half-life
    assert retention_at(5 * days, "semantic", 0.25, 0.5, cfg) > 0.5**5


def test_floors_and_pinning() -> None:
    assert retention_at(10_000, "episodic", 0.25, 0.5, CFG) == 0.02
    assert retention_at(10_000, "core", 0.25, 0.5, CFG) == 0.60
    assert retention_at(10_000, "episodic", 0.25, 0.5, CFG, pinned=True) == 1.0


def test_retention_measures_from_last_access() -> None:
    m = memory(created_at=NOW - timedelta(days=100))
    fresh = replace(m, last_accessed_at=NOW - timedelta(days=1))
    assert retention(fresh, NOW, CFG) > retention(m, NOW, CFG)
    # a future reference time (clock skew) counts as no time passed
    assert retention(memory(created_at=NOW + timedelta(days=3)), NOW, CFG) == 1.0


def test_reinforcement_spacing_effect() -> None:
    m = memory(created_at=NOW - timedelta(days=14))
    spaced = reinforce(m, NOW, CFG)
    assert spaced.stability == pytest.approx(0.25 + 0.1 * 2)  # min(2, 14/7)
    assert spaced.access_count == 1
    assert spaced.last_accessed_at == NOW
    same_day = reinforce(spaced, NOW + timedelta(hours=1), CFG)
    assert same_day.stability - spaced.stability == pytest.approx(0.1 * (1 / 24) / 7)
    assoc = reinforce(m, NOW, CFG, via_association=True)
    assert assoc.stability == pytest.approx(0.25 + 0.05 * 2)
    assert m.stability == 0.25 and m.access_count == 0  # input untouched


def test_reinforcement_records_sessions_once_and_caps_stability() -> None:
    m = memory(stability=0.99, created_at=NOW - timedelta(days=30))
    r = reinforce(reinforce(m, NOW, CFG, session_id="a"), NOW, CFG, session_id="a")
    assert r.session_ids == ("a",)
    assert r.stability == 1.0


def test_core_promotion_needs_all_three_conditions() -> None:
    ready = memory(access_count=10, stability=0.9, session_ids=("a", "b"), memory_type="semantic")
    assert promote_if_core(ready, CFG).memory_type == "core"
    assert promote_if_core(replace(ready, access_count=9), CFG).memory_type == "semantic"
    assert promote_if_core(replace(ready, stability=0.8), CFG).memory_type == "semantic"
    assert promote_if_core(replace(ready, session_ids=("a",)), CFG).memory_type == "semantic"
    assert (
        promote_if_core(replace(ready, memory_type="procedural"), CFG).memory_type == "procedural"
    )


def test_promotion_happens_through_spaced_recall() -> None:
    m = memory(memory_type="semantic", created_at=NOW)
    t = NOW
    for i in range(10):
        t += timedelta(days=14)
        m = reinforce(m, t, CFG, session_id=f"s{i % 3}")
    assert m.memory_type == "core"
