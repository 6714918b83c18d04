"""Throughput of the default offline embedder (all-MiniLM-L6-v2 on onnxruntime).

Embeds every LoCoMo dev turn (2,080 short chat turns) three times with ``MiniLMEmbedder()``
(int8, the default) and with ``MiniLMEmbedder(quantize="none")`` (float), after a warm-up, and
prints sentences per second as JSON. Target (issue 2): ≥ 500 sentences/s.

Run: ``python benchmarks/embedder.py``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import load_locomo
from cogmem import MiniLMEmbedder


def main() -> None:
    texts = [t.text for conv in load_locomo() for t in conv.turns]
    report: dict[str, object] = {
        "benchmark": "embedder",
        "texts": len(texts),
        "cpus": os.cpu_count(),
    }
    for quantize in ("dynamic", "none"):
        embedder = MiniLMEmbedder(quantize=quantize)
        embedder.embed(texts[:64])  # load (and, the first time, build the int8 model)
        rates = []
        for _ in range(3):
            started = time.perf_counter()
            embedder.embed(texts)
            rates.append(round(len(texts) / (time.perf_counter() - started), 1))
        report[quantize] = {"model_id": embedder.model_id, "sentences_per_s": rates}
    best = max(report["dynamic"]["sentences_per_s"])  # type: ignore[index]
    report["target_500_per_s"] = best >= 500
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
