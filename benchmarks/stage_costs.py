"""What each optional retrieval stage (cogmem.stages) adds to a search at N memories, with the
deterministic stand-ins (benchmarks/stand_ins.py: no model time, only cogmem's own work).
Prints one JSON object; the speed benchmark runs it too (its ``stage_costs``).

    python benchmarks/stage_costs.py --size 10000

One in-process store of N memories (the speed benchmark's texts, random unit vectors); every
query is searched with the stages off and with each stage on, in a rotating order, so that all
configurations are timed over the same minutes. A stage that is off must cost nothing
measurable: ``off_again`` is a second stages-off configuration, timed like the others.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.speed import (
    DIM,
    SEED,
    LookupEmbedder,
    base_sentences,
    memory_text,
    query_texts,
    unit_vectors,
)
from benchmarks.stand_ins import STAND_INS
from cogmem import CognitiveMemory, MemoryInput, Stages

__all__ = ["measure"]


class _Embedder(LookupEmbedder):
    """The speed benchmark's lookup embedder; a text it does not hold (an expansion, a HyDE
    statement) gets a random unit vector seeded by the text."""

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self.table:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            self.table[text] = vector / np.linalg.norm(vector)
        return self.table[text]

    def embed(self, texts: Any) -> np.ndarray:
        return np.stack([self.embed_query(t) for t in texts])


def measure(size: int, queries: int = 200) -> dict[str, Any]:
    """Search p50/mean (ms) per configuration and each one's ratio to stages off."""
    base = base_sentences()
    texts = [memory_text(base, i) for i in range(size)]
    asked = query_texts(queries)
    embedder = _Embedder()
    embedder.put(texts, unit_vectors(size, SEED))
    embedder.put(asked, unit_vectors(queries, SEED + 1))
    configs: dict[str, Stages] = {"off": Stages(), "off_again": Stages(), **STAND_INS}
    times: dict[str, list[float]] = {name: [] for name in configs}
    with CognitiveMemory(embedder=embedder) as mem:
        mem.add_many([MemoryInput(text=t) for t in texts], progress=False)
        names = list(configs)
        for n, query in enumerate(asked):
            for name in names[n % len(names) :] + names[: n % len(names)]:
                mem.stages = configs[name]
                started = time.perf_counter()
                mem.search(query, top_k=10, reinforce=False)
                times[name].append((time.perf_counter() - started) * 1000.0)
    out: dict[str, Any] = {"size": size, "queries": queries, "stand_ins": "benchmarks/stand_ins.py"}
    off = statistics.median(times["off"])
    for name, values in times.items():
        p50 = statistics.median(values)
        out[name] = {
            "p50_ms": round(p50, 3),
            "mean_ms": round(statistics.fmean(values), 3),
            "p50_over_off": round(p50 / off, 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    print(json.dumps(measure(args.size, args.queries), indent=2))


if __name__ == "__main__":
    main()
