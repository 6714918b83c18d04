"""Pairs of statements written one after the other (design §8): what write-time dedup does
with the second. Prints one JSON object.

Each pair of ``benchmarks/data/pairs/attacker.jsonl`` (written blind to the mechanism, as an
attacker would: 180 look-alikes, both true at once with the same names and numbers; 120
restatements; 100 updates) is written to a store of its own, the first ten days before the
second, with the real embedder, as a semantic memory and with the default type. Shares, by
group and by kind:

* ``lost``: a look-alike merged into the first (a write lost; must be 0);
* ``linked``: a look-alike stored as a newer version of the first;
* ``merged``: a restatement merged;
* ``updated``: an update stored as a newer version.

    python benchmarks/pairs.py [--set benchmarks/data/pairs/attacker.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.evaluate import real_embedder
from cogmem import CognitiveMemory, CognitiveMemoryConfig

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
DEFAULT_SET = Path(__file__).resolve().parent / "data" / "pairs" / "attacker.jsonl"
# The share each group is scored by: the action that counts, per group.
SCORED = {
    "lookalike": {"lost": "merged", "linked": "new_version"},
    "restatement": {"merged": "merged"},
    "update": {"updated": "new_version"},
}


def second_action(embedder: Any, first: str, second: str, memory_type: str | None) -> str:
    """What ``write`` does with ``second``, said ten days after ``first`` in a new store."""
    typed = {} if memory_type is None else {"memory_type": memory_type}
    earlier = NOW - timedelta(days=10)
    with CognitiveMemory(embedder=embedder, config=CognitiveMemoryConfig()) as mem:
        mem.write(first, created_at=earlier, now=earlier, **typed)
        return mem.write(second, created_at=NOW, now=NOW, **typed).action


def score(rows: Sequence[dict[str, str]], actions: Sequence[str]) -> dict[str, Any]:
    """Each group's shares, overall and by kind, and the ids a share counts."""
    out: dict[str, Any] = {}
    for group, shares in SCORED.items():
        mine = [(r, a) for r, a in zip(rows, actions, strict=True) if r["group"] == group]
        kinds: dict[str, Counter[str]] = defaultdict(Counter)
        for row, action in mine:
            kinds[row["kind"]][action] += 1
        out[group] = {"n": len(mine)}
        for name, action in shares.items():
            out[group][name] = {
                "share": round(sum(a == action for _, a in mine) / max(1, len(mine)), 4),
                "by_kind": {
                    k: round(c[action] / sum(c.values()), 4) for k, c in sorted(kinds.items())
                },
            }
        if group == "lookalike":  # which writes were lost, to look at
            out[group]["lost"]["ids"] = [r["id"] for r, a in mine if a == "merged"]
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    embedder, model_id = real_embedder()
    out: dict[str, Any] = {"embedder": model_id, "set": args.set.name, "pairs": len(rows)}
    for path, memory_type in (("semantic", "semantic"), ("default", None)):
        actions = [second_action(embedder, r["first"], r["second"], memory_type) for r in rows]
        out[path] = score(rows, actions)
    out["target_none_lost"] = all(
        out[p]["lookalike"]["lost"]["share"] == 0 for p in ("semantic", "default")
    )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
