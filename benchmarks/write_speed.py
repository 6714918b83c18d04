"""What write-time dedup and the version logic cost a write, at 10k memories. Prints one JSON
object.

Two folder stores are filled alike with ``--size`` memories (made-up statements about made-up
people, with the real all-MiniLM-L6-v2 embedder); one is opened with the defaults (``write``:
dedup, statements read, the type chosen by ``default_memory_type="auto"``), the other with
``dedup_threshold=None`` and ``default_memory_type="episodic"`` (``add`` as a plain store). The
same new statements are then written to both, one call each, taking turns (so both see the same
machine load), and each call timed. Both embed with the real model (not cached): the ratio is
what a user's call costs.

That is a warm process: filling the store read every statement (the default type is read from
the text), so the neighbours a write compares itself with are read already. ``cold`` repeats
the measurement in a fresh process on the two stores reopened, as after a restart: a write
then reads the neighbours it has not met yet.

    python benchmarks/write_speed.py                 # 10k memories, 300 writes each
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cogmem import CognitiveMemory, CognitiveMemoryConfig, MiniLMEmbedder

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
_PEOPLE = ("Ana", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Gustav", "Hana", "Ivan", "Jade")
_FACTS = (
    "{p} lives in {c}.",
    "{p}'s phone number is 555-{n:04d}.",
    "{p} works at {o}.",
    "{p} went to {c} for a conference last week.",
    "{p}'s flight to {c} leaves at {h}:15.",
    "{p} has {k} cats and a dog.",
    "Met {p} for lunch near the {c} office.",
    "{p} is learning to play the {i}.",
)
_CITIES = ("Lisbon", "Osaka", "Denver", "Accra", "Tallinn", "Quito", "Perth", "Cork", "Lyon")
_ORGS = ("Stripe", "Siemens", "Nokia", "Canva", "Atlassian", "Shopify", "Zalando")
_INSTRUMENTS = ("cello", "violin", "piano", "oboe", "drums", "banjo")


def statements(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for n in range(count):
        template = rng.choice(_FACTS)
        out.append(
            template.format(
                p=f"{rng.choice(_PEOPLE)} {chr(65 + n % 26)}.",
                c=rng.choice(_CITIES),
                n=rng.randrange(10000),
                o=rng.choice(_ORGS),
                h=rng.randrange(6, 22),
                k=rng.randrange(1, 5),
                i=rng.choice(_INSTRUMENTS),
            )
        )
    return out


def _percentiles(samples: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 3),
        "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 3),
        "mean_ms": round(1000 * statistics.fmean(ordered), 3),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=300)
    args = parser.parse_args(argv)
    embedder = MiniLMEmbedder()
    plain = CognitiveMemoryConfig(dedup_threshold=None, default_memory_type="episodic")
    fill = statements(args.size, seed=1)
    when = [NOW - timedelta(days=365 * n / args.size) for n in range(args.size)]
    out: dict[str, Any] = {"size": args.size, "writes": args.writes, "model": embedder.model_id}
    with tempfile.TemporaryDirectory() as root:
        stores = {}
        for name, config in (("write", CognitiveMemoryConfig()), ("add", plain)):
            mem = CognitiveMemory(path=Path(root) / name, embedder=embedder, config=config)
            mem.add_many(
                [
                    {"text": t, "created_at": w, "id": f"m{n}"}
                    for n, (t, w) in enumerate(zip(fill, when, strict=True))
                ],
                now=NOW,
                progress=False,
            )
            stores[name] = mem
        times, actions = _take_turns(stores, statements(args.writes, seed=2))
        for mem in stores.values():
            mem.close()
        out.update(_summary(times, actions))
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as child:
            out["cold"] = child.submit(_cold, root, args.writes).result()
    out["target_p50_ratio_at_most_1.5"] = out["p50_ratio"] <= 1.5
    print(json.dumps(out, indent=2))


def _take_turns(
    stores: dict[str, CognitiveMemory], new: Sequence[str]
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Each of ``new`` written to both stores, taking turns; each call's seconds, and what
    the ``write`` store's calls did."""
    times: dict[str, list[float]] = {"write": [], "add": []}
    actions: dict[str, int] = {}
    for n, text in enumerate(new):
        order = ("write", "add") if n % 2 == 0 else ("add", "write")
        for name in order:
            mem = stores[name]
            started = time.perf_counter()
            outcome = mem.write(text, now=NOW)
            times[name].append(time.perf_counter() - started)
            if name == "write":
                actions[outcome.action] = actions.get(outcome.action, 0) + 1
    return times, actions


def _summary(times: dict[str, list[float]], actions: dict[str, int]) -> dict[str, Any]:
    write, add = _percentiles(times["write"]), _percentiles(times["add"])
    return {
        "write": write,
        "add_dedup_off": add,
        "write_actions": actions,
        "p50_ratio": round(write["p50_ms"] / add["p50_ms"], 3),
    }


def _cold(root: str, writes: int) -> dict[str, Any]:
    """The measurement in this (fresh) process, on the two stores reopened."""
    embedder = MiniLMEmbedder()
    plain = CognitiveMemoryConfig(dedup_threshold=None, default_memory_type="episodic")
    stores = {
        name: CognitiveMemory(path=Path(root) / name, embedder=embedder, config=config)
        for name, config in (("write", CognitiveMemoryConfig()), ("add", plain))
    }
    try:
        return _summary(*_take_turns(stores, statements(writes, seed=3)))
    finally:
        for mem in stores.values():
            mem.close()


if __name__ == "__main__":
    main()
