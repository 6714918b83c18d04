"""The score: calibrated relevance · R^(α·s_type) · penalties, with an explanation (design §3)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig, MemoryRecord
from cogmem.records import STATED_KEY
from cogmem.scoring import Candidate, effective_exponent, score_candidates
from tests.conftest import NOW

CFG = CognitiveMemoryConfig()


def vec(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def cand(
    mid: str, days: float, cos: float, *, memory_type: str = "semantic", v=None, **kw
) -> Candidate:
    m = MemoryRecord(
        id=mid,
        text=mid,
        created_at=NOW - timedelta(days=days),
        memory_type=memory_type,
        stability=0.25,
    )
    return Candidate(
        memory=replace(m, **kw),
        vector=v if v is not None else vec(1, 0, 0),
        cosine=cos,
        dense_rank=1,
        bm25=0.0,
        lexical_rank=None,
    )


def test_old_clearly_relevant_beats_new_marginal_and_explanation_adds_up() -> None:
    old = cand("old", 300, 0.9, v=vec(1, 0, 0))
    new = cand("new", 1, 0.3, v=vec(0, 1, 0))
    results = score_candidates([new, old], mode="dense", now=NOW, config=CFG)
    assert [r.id for r in results] == ["old", "new"]
    e = results[0].explanation
    assert e.relevance == pytest.approx(0.9)
    assert e.alpha == pytest.approx(0.3)
    assert e.score == pytest.approx(e.relevance * e.retention**e.alpha)
    assert e.decay_factor == pytest.approx(e.retention**e.alpha)
    assert results[0].score == e.score


def test_episodes_decay_at_a_tenth_of_alpha() -> None:
    assert effective_exponent(cand("e", 1, 1, memory_type="episodic").memory, CFG) == pytest.approx(
        0.03
    )
    assert effective_exponent(cand("s", 1, 1).memory, CFG) == pytest.approx(0.3)


def test_newer_similar_fact_puts_the_current_version_first() -> None:
    stale = cand("stale", 250, 0.95, v=vec(1, 0.2, 0))
    current = cand("current", 10, 0.50, v=vec(1, 0.5, 0))
    results = score_candidates([stale, current], mode="dense", now=NOW, config=CFG)
    assert [r.id for r in results] == ["current", "stale"]
    e = results[1].explanation
    assert e.newer_version_id == "current"
    assert 0 < e.penalties["newer_version"] < 1
    # without the version rule, the better-worded stale version would win
    plain = score_candidates(
        [stale, current], mode="dense", now=NOW, config=CFG.replace(version_exponent=0.0)
    )
    assert plain[0].id == "stale"


def test_version_rule_needs_similarity_and_spares_episodes() -> None:
    stale = cand("stale", 250, 0.85, v=vec(1, 0, 0))
    other = cand("other", 10, 0.70, v=vec(0, 1, 0))  # newer but about something else
    results = score_candidates([stale, other], mode="dense", now=NOW, config=CFG)
    assert "newer_version" not in results[0].explanation.penalties
    ep = cand("ep", 250, 0.85, memory_type="episodic", v=vec(1, 0.2, 0))
    newer = cand("newer", 10, 0.70, memory_type="episodic", v=vec(1, 0.5, 0))
    results = score_candidates([ep, newer], mode="dense", now=NOW, config=CFG)
    assert results[0].id == "ep"  # an episode is not outdated by a later one


def test_an_exchange_ranks_below_the_outdated_fact_it_states() -> None:
    """The exchange in which a fact was said (an episode, barely fading) ranks right below
    that fact once a newer version of it ranks above it (here a link written by dedup);
    while the fact holds, the exchange keeps its score."""
    exchange = cand(
        "exchange",
        250,
        0.95,
        memory_type="episodic",
        v=vec(0, 0, 1),  # worded apart from the change: no newer_version penalty of its own
        metadata={STATED_KEY: "stale"},
    )
    stale = cand("stale", 250, 0.95, v=vec(1, 0.2, 0))
    current = cand("current", 10, 0.50, v=vec(1, 0.5, 0), previous_version="stale")
    results = score_candidates([exchange, stale, current], mode="dense", now=NOW, config=CFG)
    assert [r.id for r in results] == ["current", "stale", "exchange"]
    penalty = results[2].explanation.penalties["states_fact"]
    assert results[2].score == pytest.approx(CFG.version_margin * results[1].score)
    assert 0 < penalty < 1
    # the fact still holds (nothing newer): the exchange is scored as itself
    alone = score_candidates([exchange, stale], mode="dense", now=NOW, config=CFG)
    assert alone[0].id == "exchange"
    assert "states_fact" not in alone[0].explanation.penalties


def test_deep_recall_penalty_and_pinned() -> None:
    sup = cand("sup", 0, 0.8, status="superseded", superseded_by="x")
    results = score_candidates([sup], mode="dense", now=NOW, config=CFG)
    # Archived = older: retention × 0.5, so the score × 0.5^α (α = 0.3 for a fact).
    factor = 0.5**0.3
    assert results[0].explanation.penalties == {"deep_recall": pytest.approx(factor)}
    assert results[0].score == pytest.approx(0.8 * results[0].explanation.decay_factor * factor)
    literal = CFG.replace(deep_recall_scope="score")  # the plain formula: the score × 0.5
    results = score_candidates([sup], mode="dense", now=NOW, config=literal)
    assert results[0].explanation.penalties == {"deep_recall": 0.5}
    assert results[0].score == pytest.approx(0.8 * results[0].explanation.decay_factor * 0.5)
    pinned = cand("p", 5000, 0.5, pinned=True)
    assert (
        score_candidates([pinned], mode="dense", now=NOW, config=CFG)[0].explanation.retention
        == 1.0
    )


def test_context_neighbour_inherits_relevance_and_the_better_path_wins() -> None:
    seed = cand("seed", 1, 0.8)
    neighbour = replace(
        cand("nb", 1, 0.1), via="context", inherited=0.64, source_id="seed", dense_rank=None
    )
    results = {
        r.id: r for r in score_candidates([seed, neighbour], mode="dense", now=NOW, config=CFG)
    }
    assert results["nb"].explanation.relevance == pytest.approx(0.64)
    assert results["nb"].explanation.via == "context"
    assert results["nb"].explanation.source_id == "seed"
    also_found = cand("nb", 1, 0.9)
    results = {
        r.id: r
        for r in score_candidates([seed, neighbour, also_found], mode="dense", now=NOW, config=CFG)
    }
    assert results["nb"].explanation.via == "search"
    assert results["nb"].explanation.relevance == pytest.approx(0.9)


def test_lexical_mode_normalises_by_best_bm25() -> None:
    a = replace(cand("a", 1, 0.1), bm25=6.0, lexical_rank=1)
    b = replace(cand("b", 1, 0.9), bm25=3.0, lexical_rank=2)
    results = score_candidates([a, b], mode="lexical", now=NOW, config=CFG)
    assert [r.id for r in results] == ["a", "b"]
    assert results[1].explanation.fused == pytest.approx(0.5)


def test_hybrid_rrf_option_uses_ranks() -> None:
    cfg = CFG.replace(fusion="rrf")
    a = replace(cand("a", 1, 0.9), dense_rank=1, bm25=1.0, lexical_rank=2)
    b = replace(cand("b", 1, 0.5), dense_rank=2, bm25=5.0, lexical_rank=1)
    results = score_candidates([a, b], mode="hybrid", now=NOW, config=cfg)
    assert results[0].explanation.fused == pytest.approx(results[1].explanation.fused)


def test_version_penalty_ramps_with_similarity() -> None:
    """Two facts that only share a subject are penalised far less than two versions of one."""

    def pair(similarity: float) -> float:
        old_v = vec(1, 0, 0)
        new_v = np.array([similarity, np.sqrt(1 - similarity**2), 0], dtype=np.float32)
        old = cand("old", 120, 0.8, v=old_v)
        new = cand("new", 5, 0.6, v=new_v)
        results = {r.id: r for r in score_candidates([old, new], mode="dense", now=NOW, config=CFG)}
        e = results["old"].explanation
        return e.penalties.get("newer_version", 1.0)

    r_old = np.exp(-120 / (0.25 * 2 * 240))
    r_new = np.exp(-5 / (0.25 * 2 * 240))
    assert pair(0.35) == 1.0  # below version_similarity: not a version
    assert pair(0.50) == pytest.approx((r_old / r_new) ** (2.0 * (0.50 - 0.40) / 0.30))
    assert pair(0.90) == pytest.approx((r_old / r_new) ** 2.0)  # a near-paraphrase: full strength
    assert pair(0.90) < pair(0.50) < 1.0


def test_a_negative_bm25_score_is_explained_not_printed_bare(mem: CognitiveMemory) -> None:
    # One memory: every word is in "most memories", so rank_bm25's idf (and the score) is < 0.
    mem.add("The user prefers dark mode", now=NOW)
    (result,) = mem.search("dark mode", now=NOW, reinforce=False)
    assert result.explanation.bm25 is not None and result.explanation.bm25 < 0
    text = str(result.explanation)
    assert "bm25 #1 (score -" in text and "its words are in most memories, so idf ≤ 0" in text
    mem.add_many(["Paid the electricity bill", "Booked a dentist appointment"], now=NOW)
    best = mem.search("dark mode", now=NOW, reinforce=False)[0]
    assert best.explanation.bm25 is not None and best.explanation.bm25 > 0
    assert f"bm25 #1 {best.explanation.bm25:.2f})" in str(best.explanation)
