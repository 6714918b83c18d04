"""Retention (forgetting) and reinforcement (spaced recall): design §2, after seed 001.

Retention of memory ``m`` at time ``now``::

    R(m) = max(floor_type, exp(-Δt / (S · B · β_type)))                 exponential (default)
    R(m) = max(floor_type, (1 + Δt / (S · B · β_type)) ** -γ)           power, γ = 1.4427

    Δt      days since last access (creation if never accessed)
    S       stability in [0.01, 1]; initially 0.1 + 0.3 · importance
    B       importance boost, min(1 + 2 · importance, 3)
    β_type  days: episodic 45, semantic 240, procedural ∞ (R = 1), core 120
    floor   core 0.60, every other type 0.02;  pinned memories have R = 1

``S · B · β`` is the time constant τ in days; the exponential half-life is τ · ln 2.

Reinforcement when a search returns the memory::

    S ← min(1, S + g · min(2, Δt / 7))      g = 0.1 (0.05 when reached through an association)

so a same-day re-read adds almost nothing (the spacing effect). All functions are pure: they
take ``now`` and return new records.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime

from .config import CognitiveMemoryConfig
from .records import MemoryRecord

__all__ = [
    "MAX_STABILITY",
    "MIN_STABILITY",
    "half_life_days",
    "importance_boost",
    "initial_stability",
    "promote_if_core",
    "reinforce",
    "retention",
    "retention_at",
    "time_constant_days",
]

MIN_STABILITY = 0.01
MAX_STABILITY = 1.0


def _clamp_stability(value: float) -> float:
    return min(MAX_STABILITY, max(MIN_STABILITY, value))


def initial_stability(importance: float, config: CognitiveMemoryConfig) -> float:
    """S₀ = clamp(0.1 + 0.3 · importance, 0.01, 1)."""
    return _clamp_stability(config.stability_base + config.stability_per_importance * importance)


def importance_boost(importance: float, config: CognitiveMemoryConfig) -> float:
    """B = min(1 + 2 · importance, 3)."""
    return min(1.0 + config.importance_boost * importance, config.importance_boost_cap)


def time_constant_days(
    memory_type: str, stability: float, importance: float, config: CognitiveMemoryConfig
) -> float:
    """τ = S · B · β_type in days (``inf`` for procedural memories)."""
    beta = config.type_time_constant_days[memory_type]
    return stability * importance_boost(importance, config) * beta


def retention_at(
    age_days: float,
    memory_type: str,
    stability: float,
    importance: float,
    config: CognitiveMemoryConfig,
    *,
    pinned: bool = False,
) -> float:
    """Retention after ``age_days`` days without access, in [floor, 1].

    Args:
        age_days: Δt, days since last access (negative values count as 0).
        memory_type: Selects β_type and the floor.
        stability: S.
        importance: Sets B.
        config: Decay model and constants.
        pinned: Pinned memories never decay.

    Returns:
        R in [floor_type, 1].
    """
    if pinned:
        return 1.0
    tau = time_constant_days(memory_type, stability, importance, config)
    if math.isinf(tau):
        return 1.0
    dt = max(0.0, age_days)
    if config.decay_model == "exponential":
        raw = math.exp(-dt / tau)
    else:
        raw = (1.0 + dt / tau) ** -config.power_gamma
    return max(float(config.retention_floor[memory_type]), float(raw))


def retention(memory: MemoryRecord, now: datetime, config: CognitiveMemoryConfig) -> float:
    """R(m) at ``now`` (see the module docstring)."""
    return retention_at(
        memory.age_days(now),
        memory.memory_type,
        memory.stability,
        memory.importance,
        config,
        pinned=memory.pinned,
    )


def half_life_days(
    memory_type: str,
    importance: float,
    config: CognitiveMemoryConfig,
    stability: float | None = None,
) -> float:
    """Days until R falls to 0.5 (ignoring the floor) for a memory of this type and importance.

    Exponential: τ · ln 2. Power: τ · (2^(1/γ) − 1). ``stability`` defaults to S₀.
    """
    s = initial_stability(importance, config) if stability is None else stability
    tau = time_constant_days(memory_type, s, importance, config)
    if math.isinf(tau):
        return math.inf
    if config.decay_model == "exponential":
        return tau * math.log(2.0)
    return tau * float(2.0 ** (1.0 / config.power_gamma) - 1.0)


def reinforce(
    memory: MemoryRecord,
    now: datetime,
    config: CognitiveMemoryConfig,
    *,
    session_id: str | None = None,
    via_association: bool = False,
) -> MemoryRecord:
    """The memory after being recalled at ``now``.

    ``S ← min(1, S + g · min(2, Δt/7))``, ``access_count += 1``, ``last_accessed_at = now``, the
    session recorded; then core promotion is checked (:func:`promote_if_core`).

    Args:
        memory: The memory as stored (not modified).
        now: The time of recall.
        config: Gains and spacing.
        session_id: The session that recalled it, recorded once.
        via_association: Reached through a link rather than directly (smaller gain).
    """
    gain = config.association_reinforcement_gain if via_association else config.reinforcement_gain
    spacing = min(
        config.reinforcement_max_multiplier,
        memory.age_days(now) / config.reinforcement_spacing_days,
    )
    sessions = memory.session_ids
    if session_id is not None and session_id not in sessions:
        sessions = (*sessions, session_id)
    updated = replace(
        memory,
        stability=_clamp_stability(memory.stability + gain * spacing),
        access_count=memory.access_count + 1,
        last_accessed_at=max(now, memory.reference_time),
        session_ids=sessions,
    )
    return promote_if_core(updated, config)


def promote_if_core(memory: MemoryRecord, config: CognitiveMemoryConfig) -> MemoryRecord:
    """Turn a well-rehearsed memory into ``core``.

    Promotion needs ``access_count ≥ 10``, ``S ≥ 0.85`` and at least 2 distinct sessions.
    Procedural memories already never decay and keep their type.
    """
    if memory.memory_type in ("core", "procedural"):
        return memory
    if (
        memory.access_count >= config.core_promotion_access_count
        and memory.stability >= config.core_promotion_stability
        and len(memory.session_ids) >= config.core_promotion_sessions
    ):
        return replace(memory, memory_type="core")
    return memory
