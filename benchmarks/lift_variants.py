"""The offline lift (issue on retrieval stages): candidate changes to the defaults, each
measured on all four sets before one may become the default. One JSON object on stdout.

    python benchmarks/lift_variants.py [--only NAME,...]

Per variant (config overrides): LoCoMo dev hybrid recall@10 (decay on), SciFact train hybrid
nDCG@10, the knowledge-update share with the current version first, and the repository's own
made-up conversation (benchmarks/data/conversation) recall@10, which no variant was tuned on.
A variant may become the default only if it lifts LoCoMo to the target and lowers none of the
others (``wins``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import EmbeddingCache, load_locomo, load_scifact
from benchmarks.evaluate import CachedEmbedder, locomo, real_embedder, updates
from benchmarks.scifact import CACHE_DIR, run_cogmem
from cogmem import CognitiveMemoryConfig, MiniLMEmbedder

LOCOMO_TARGET = 0.73
MADE_UP = Path(__file__).resolve().parent / "data" / "conversation" / "dev.jsonl"

_BEFORE = {"bm25_k1": 1.5, "bm25_b": 0.75}

#: name -> (what it is, config overrides). "before" (the defaults before this search: BM25
#: k1 = 1.5, b = 0.75) comes first: every other variant is judged against it.
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "before": ("the defaults before: BM25 k1 = 1.5, b = 0.75", _BEFORE),
    "dense-0.6": ("weighted fusion 0.6·cos + 0.4·bm25", {**_BEFORE, "weighted_dense_weight": 0.6}),
    "dense-0.8": ("weighted fusion 0.8·cos + 0.2·bm25", {**_BEFORE, "weighted_dense_weight": 0.8}),
    "bm25-b0.5": ("BM25 length normalisation b = 0.5", {**_BEFORE, "bm25_b": 0.5}),
    "bm25-b0.4": ("BM25 b = 0.4", {**_BEFORE, "bm25_b": 0.4}),
    "bm25-b0.3": ("BM25 b = 0.3", {**_BEFORE, "bm25_b": 0.3}),
    "bm25-b0.2": ("BM25 b = 0.2", {**_BEFORE, "bm25_b": 0.2}),
    "bm25-k1.2": ("BM25 k1 = 1.2", {**_BEFORE, "bm25_k1": 1.2}),
    "context-0.9": (
        "temporal context inherits 0.9 of a seed's relevance",
        {**_BEFORE, "context_spread": 0.9},
    ),
    "context-span3": ("temporal context 3 places either side", {**_BEFORE, "context_span": 3}),
    "default": ("the shipped defaults: BM25 k1 = 1.2, b = 0.4", {}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated variant names")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(VARIANTS)
    if "before" not in names:
        names.insert(0, "before")
    embedder, model_id = real_embedder()
    model = MiniLMEmbedder()
    sci_embedder = CachedEmbedder(EmbeddingCache(model.embed, model.model_id, CACHE_DIR))
    conversations, made_up = load_locomo(), load_locomo(MADE_UP)
    corpus, queries, qrels = load_scifact()
    doc_ids = list(corpus)
    texts = [corpus[i] for i in doc_ids]
    rows: dict[str, Any] = {}
    for name in names:
        what, overrides = VARIANTS[name]
        config = CognitiveMemoryConfig().replace(**overrides)
        started = time.perf_counter()
        sci = run_cogmem(config, sci_embedder, doc_ids, texts, queries, qrels, ("hybrid",), 10)
        rows[name] = {
            "what": what,
            "overrides": overrides,
            "locomo_recall@10": locomo(config, embedder, conversations=conversations)["overall"][
                "recall@10"
            ],
            "scifact_ndcg@10": sci["hybrid"]["ndcg@10"],
            "updates_current_first": updates(config, embedder)["success"],
            "made_up_recall@10": locomo(config, embedder, conversations=made_up)["overall"][
                "recall@10"
            ],
            "seconds": round(time.perf_counter() - started, 1),
        }
        print(f"{name}: {rows[name]}", file=sys.stderr, flush=True)
    base = rows["before"]
    measures = ("scifact_ndcg@10", "updates_current_first", "made_up_recall@10")
    for name, row in rows.items():
        row["wins"] = (
            name != "before"
            and row["locomo_recall@10"] >= LOCOMO_TARGET
            and all(row[m] >= base[m] for m in measures)
        )
    print(
        json.dumps(
            {
                "benchmark": "lift_variants",
                "embedder": model_id,
                "locomo_target": LOCOMO_TARGET,
                "variants": rows,
                "winners": [n for n, r in rows.items() if r["wins"]],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
