"""Consolidation on LoCoMo dev: does it shrink the store without losing what deep recall finds?

Each conversation is loaded as in ``benchmarks/locomo.py`` (one store per conversation, each turn
an episodic memory created at its session's date), then, as of its last session + 180 days:

* ``unconsolidated``: every question searched on the store as it is;
* ``consolidated``: :meth:`cogmem.CognitiveMemory.consolidate` at that time (default extractive
  summarizer), then every question searched without and with ``deep_recall`` (the default, and
  with ``deep_recall_scope="score"``: the plain × 0.5 (design §3), for the record).

Reported: active memories before/after, groups formed, recall@10 / hit@10 for the three, and
the target: consolidation shrinks the active set while deep recall stays within 0.02 of the
unconsolidated recall@10. Searches never reinforce. Prints one JSON object.

Run: ``python benchmarks/lifecycle.py [--days 180] [--conversations N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import load_locomo, summarize_locomo
from benchmarks.evaluate import real_embedder
from cogmem import CognitiveMemory, CognitiveMemoryConfig, MemoryInput


def run(days: float, conversations: int | None = None) -> dict[str, Any]:
    """The scenario over the LoCoMo dev conversations; see the module docstring."""
    embedder, model_id = real_embedder()
    config = CognitiveMemoryConfig()
    rows: dict[str, list[dict[str, Any]]] = {
        "unconsolidated": [],
        "consolidated": [],
        "deep": [],
        "deep_spec_literal": [],
    }
    sizes = {"memories": 0, "active_after": 0, "groups": 0, "superseded": 0, "summaries": 0}
    seconds = 0.0
    convs = load_locomo()[:conversations] if conversations else load_locomo()
    for conv in convs:
        when = conv.now - timedelta(days=1) + timedelta(days=days)  # last session + days
        mem = CognitiveMemory(embedder=embedder, config=config)
        mem.add_many(
            [MemoryInput(text=t.text, id=t.id, created_at=t.created_at) for t in conv.turns],
            now=conv.now,
        )
        sizes["memories"] += len(mem)

        def ask(
            key: str, deep: bool, memory: CognitiveMemory = mem, conv: Any = conv, when: Any = when
        ) -> None:
            for q in conv.questions:
                found = memory.search(q.text, top_k=10, now=when, deep_recall=deep, reinforce=False)
                rows[key].append(
                    {
                        "category": q.category,
                        "evidence": q.evidence,
                        "ranked": [r.memory.id for r in found],
                    }
                )

        ask("unconsolidated", False)
        started = time.perf_counter()
        report = mem.consolidate(when, progress=False)
        seconds += time.perf_counter() - started
        sizes["groups"] += len(report.groups)
        sizes["superseded"] += len(report.superseded_ids)
        sizes["summaries"] += len(report.summary_ids)
        sizes["active_after"] += len(mem.memories())
        ask("consolidated", False)
        ask("deep", True)
        mem.config = config.replace(deep_recall_scope="score")  # the plain formula: score × 0.5
        ask("deep_spec_literal", True)
        mem.close()
    overall = {key: summarize_locomo(r)["overall"] for key, r in rows.items()}
    gap = round(overall["unconsolidated"]["recall@10"] - overall["deep"]["recall@10"], 3)
    return {
        "benchmark": "lifecycle",
        "embedder": model_id,
        "days_after_last_session": days,
        "questions": len(rows["unconsolidated"]),
        "store": sizes,
        "active_share_after": round(sizes["active_after"] / sizes["memories"], 3),
        "recall": {
            "unconsolidated": overall["unconsolidated"],
            "consolidated (normal search)": overall["consolidated"],
            "consolidated + deep_recall": overall["deep"],
            "consolidated + deep_recall, penalty on the score (plain formula)": overall[
                "deep_spec_literal"
            ],
        },
        "consolidate_seconds": round(seconds, 2),
        "targets": {
            "active set shrinks": sizes["active_after"] < sizes["memories"],
            "deep recall recall@10 within 0.02 of unconsolidated": gap <= 0.02,
            "gap": gap,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=float, default=180.0)
    parser.add_argument("--conversations", type=int, default=None)
    args = parser.parse_args()
    print(json.dumps(run(args.days, args.conversations), indent=2))


if __name__ == "__main__":
    main()
