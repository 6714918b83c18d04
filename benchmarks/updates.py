"""Knowledge updates (design §8): the share of cases whose current version is in the top 10 above
every stale version, with decay on and off, for each mode. Prints one JSON object.

    python benchmarks/updates.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.evaluate import NO_DECAY, real_embedder, updates
from cogmem import CognitiveMemoryConfig


def main() -> None:
    embedder, model_id = real_embedder()
    config = CognitiveMemoryConfig()
    out = {"embedder": model_id, "cases": 200, "current_first": {}}
    for mode in ("hybrid", "dense", "lexical"):
        for decay, cfg in (("decay_on", config), ("decay_off", config.replace(**NO_DECAY))):
            out["current_first"][f"{mode}/{decay}"] = updates(cfg, embedder, mode=mode)["success"]
    on = out["current_first"]["hybrid/decay_on"]
    out["target_at_least_0.90"] = on >= 0.90
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
