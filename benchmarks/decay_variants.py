"""Decay must reorder, not bury (design §3): both figures for every scoring variant, side by side.

For each variant (a set of config overrides) prints LoCoMo recall@10 (decay on) and the share of
knowledge-update cases whose current version comes first, plus the same LoCoMo figure with decay
off so the cost of decay is visible. One JSON object on stdout.

    python benchmarks/decay_variants.py [--only NAME,...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.evaluate import NO_DECAY, locomo, real_embedder, updates
from cogmem import CognitiveMemoryConfig

_PLAIN = {
    "fusion": "rrf",
    "type_exponent_scale": {"episodic": 1.0, "semantic": 1.0, "procedural": 1.0, "core": 1.0},
    "version_exponent": 0.0,
    "context_spread": 0.0,
}
_UNIFORM = {"episodic": 1.0, "semantic": 1.0, "procedural": 1.0, "core": 1.0}

#: name -> (what it is, config overrides). The last one is the shipped default.
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "plain": ("the plain formula (design §3): RRF relevance · R^0.3 for every type", _PLAIN),
    "rrf+context": (
        "plain RRF with temporal-context neighbours",
        {**_PLAIN, "context_spread": 0.8},
    ),
    "weighted": (
        "score-calibrated relevance (0.7·cos + 0.3·bm25/max), R^0.3 for every type",
        {**_PLAIN, "fusion": "weighted"},
    ),
    "weighted+context": (
        "score-calibrated relevance + context, R^0.3 for every type",
        {**_PLAIN, "fusion": "weighted", "context_spread": 0.8},
    ),
    "weighted+context+episodic-scale": (
        "… and episodic memories decay in the score at 0.1·α",
        {"version_exponent": 0.0},
    ),
    "weighted+context+versions-uniform": (
        "… newer-version penalty, α = 0.3 for every type",
        {"type_exponent_scale": _UNIFORM},
    ),
    "weighted+context+versions-small-alpha": (
        "… newer-version penalty, α = 0.03 for every type",
        {"type_exponent_scale": _UNIFORM, "retrieval_score_exponent": 0.03},
    ),
    "rrf+context+versions+episodic-scale": (
        "the default with RRF instead of score-calibrated relevance",
        {"fusion": "rrf"},
    ),
    "versions-hard-threshold": (
        "the default with the first version rule: full penalty (exponent 1) at cosine ≥ 0.45",
        {"version_similarity": 0.45, "version_similarity_full": 0.45, "version_exponent": 1.0},
    ),
    "default": (
        "what ships: calibrated relevance, context, episodic scale, newer-version ramp 0.40→0.70",
        {},
    ),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", default="", help="comma-separated variant names")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(VARIANTS)
    embedder, model_id = real_embedder()
    rows = {}
    for name in names:
        what, overrides = VARIANTS[name]
        started = time.perf_counter()
        config = CognitiveMemoryConfig().replace(**overrides)
        on = locomo(config, embedder)["overall"]
        off = locomo(config.replace(**NO_DECAY), embedder)["overall"]
        upd = updates(config, embedder)
        rows[name] = {
            "what": what,
            "locomo_recall@10_decay_on": on["recall@10"],
            "locomo_recall@10_decay_off": off["recall@10"],
            "locomo_cost_of_decay": round(off["recall@10"] - on["recall@10"], 3),
            "updates_current_first": upd["success"],
            "seconds": round(time.perf_counter() - started, 1),
        }
        print(f"{name}: {rows[name]}", file=sys.stderr, flush=True)
    print(json.dumps({"embedder": model_id, "variants": rows}, indent=2))


if __name__ == "__main__":
    main()
