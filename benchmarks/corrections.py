"""Corrections against restatements, through the real write path. Prints one JSON object.

Every case's writes go into ONE store, oldest first, each through ``CognitiveMemory.write``
(what ``add`` does, plus its outcome) with a generated id, ``memory_type="semantic"``,
``created_at = now - days_ago`` and the default config; then, at ``now``:

* a correction (the later write changes one detail) is **kept** when its text is stored, and
  comes **current first** when, among the case's texts in the top 10 of
  ``search(query, top_k=10, reinforce=False)``, it is the first;
* a restatement (the later write says the same again) is **merged** when the write stored
  nothing new (``action == "merged"``).

The sets: ``dev`` (``corrections/dev.jsonl``, 120 cases, shipped in ``benchmarks/data/``) and
``generated``: cases built here from templates, names and framing phrases that the dev set
does not use (:func:`generate`), so that the figures also speak for wordings the mechanism was
not developed on.

    python benchmarks/corrections.py                 # both sets, the real model
    python benchmarks/corrections.py --cases 400     # a larger generated set
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import read_jsonl
from benchmarks.data import dataset
from benchmarks.evaluate import real_embedder
from cogmem import CognitiveMemory

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Write:
    text: str
    days_ago: float


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # "correction" | "restatement"
    query: str
    writes: tuple[Write, ...]
    current: str


def load_cases(path: Path) -> list[Case]:
    """The cases of a corrections JSON Lines file (see its README)."""
    return [
        Case(
            id=str(obj["id"]),
            kind=str(obj["kind"]),
            query=str(obj["query"]),
            writes=tuple(Write(str(w["text"]), float(w["days_ago"])) for w in obj["writes"]),
            current=str(obj["current"]),
        )
        for obj in read_jsonl(path)
    ]


# --------------------------------------------------------------------------- generated cases

_NAMES = ("Priya", "Diego", "Hana", "Kwame", "Ingrid", "Mateo", "Yusuf", "Chloe", "Arjun", "Zoe")
_CITIES = ("Porto", "Dublin", "Accra", "Kyoto", "Quito", "Tallinn", "Perth", "Seville", "Cork")
_COMPANIES = ("Stripe", "Siemens", "Atlassian", "Shopify", "Nokia", "Zalando", "Canva")
_MONTHS = ("March", "April", "June", "July", "August", "September", "October")
_DAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays")
_COLOURS = ("green", "orange", "purple", "teal", "yellow", "grey")
_DRINKS = ("tea", "coffee", "cocoa", "juice", "kombucha")
_FOODS = ("mushrooms", "olives", "cilantro", "eggplant", "tofu")

# A framing phrase before (ending with its own punctuation) or after the statement.
_PREFIXES = (
    "Just so you know, ",
    "Heads up: ",
    "As I mentioned, ",
    "Quick note - ",
    "For the record, ",
    "PS: ",
    "To repeat: ",
    "Btw, ",
    "Remember that ",
    "Don't forget: ",
    "Keep in mind that ",
    "As a reminder, ",
)
_SUFFIXES = (", as mentioned.", " (again).", ", just so you know.", ", as I said.")

Slot = Callable[[random.Random], str]


def _number(low: int, high: int, step: int = 1) -> Slot:
    return lambda rng: str(rng.randrange(low, high, step))


def _pick(options: Sequence[str]) -> Slot:
    return lambda rng: rng.choice(options)


def _time(rng: random.Random) -> str:
    return f"{rng.randrange(6, 10)}:{rng.choice(('00', '15', '30', '45'))}"


# (statement with {n} and {v}, query with {n}, the slot {v}); a template whose statement holds
# "{neg}" has a negated form instead of a slot (v -> "not ", or dropped).
_TEMPLATES: tuple[tuple[str, str, Slot | None], ...] = (
    ("{n}'s dentist appointment is on {v}.", "When is {n}'s dentist appointment?",
     lambda rng: f"{rng.choice(_MONTHS)} {rng.randrange(1, 29)}"),
    ("{n} pays {v} euros of rent a month.", "How much rent does {n} pay?", _number(600, 2400, 50)),
    ("{n} works at {v}.", "Where does {n} work?", _pick(_COMPANIES)),
    ("{n}'s laptop runs macOS {v}.", "Which macOS version does {n}'s laptop run?",
     _number(11, 16)),
    ("{n} has {v} cats.", "How many cats does {n} have?", _number(1, 6)),
    ("{n} is {neg}vegetarian.", "Is {n} vegetarian?", None),
    ("{n}'s gym class is on {v}.", "Which day is {n}'s gym class?", _pick(_DAYS)),
    ("The build timeout for {n}'s pipeline is {v} minutes.",
     "What is the build timeout of {n}'s pipeline?", _number(10, 90, 5)),
    ("{n}'s favourite colour is {v}.", "What is {n}'s favourite colour?", _pick(_COLOURS)),
    ("{n} drinks {v} every morning.", "What does {n} drink in the morning?", _pick(_DRINKS)),
    ("{n} moved to {v} last spring.", "Where did {n} move to?", _pick(_CITIES)),
    ("{n}'s train to work leaves at {v}.", "When does {n}'s train leave?", _time),
    ("{n} {neg}eats {food}.", "Does {n} eat {food}?", None),
    # one fact about no person, stated over and over (as the dev set's team standup)
    ("The quarterly review is on {v}.", "When is the quarterly review?",
     lambda rng: f"{rng.choice(_MONTHS)} {rng.randrange(1, 29)}"),
)  # fmt: skip


def _negated(template: str, negate: bool, rng: random.Random) -> str:
    if "{food}" in template:
        return template.replace("{neg}eats", "doesn't eat" if negate else "eats")
    return template.replace("{neg}", rng.choice(("not ", "no longer ")) if negate else "")


def _restated(text: str, rng: random.Random) -> str:
    """The same statement again: verbatim, another case and punctuation, or framed."""
    how = rng.randrange(4)
    if how == 0:
        return text
    if how == 1:
        return text.lower().rstrip(".") + rng.choice(("!", "", " ."))
    if how == 2:
        prefix = rng.choice(_PREFIXES)
        return prefix + text[0].lower() + text[1:]
    return text.rstrip(".") + rng.choice(_SUFFIXES)


def generate(count: int, seed: int = 7) -> list[Case]:
    """``count`` cases (two thirds corrections) from templates, names and framing phrases that
    the dev set does not use, built as the dev set is: each name with each template once (a
    name-template pair repeats only past 140 cases), writes spaced as there (the first 5-70
    days ago, the second 0-3 days ago)."""
    rng = random.Random(seed)
    pairs = [(n, t) for n in _NAMES for t in _TEMPLATES]
    rng.shuffle(pairs)
    cases: list[Case] = []
    for number in range(count):
        name, (statement, question, slot) = pairs[number % len(pairs)]
        food = rng.choice(_FOODS)
        query = question.format(n=name, food=food)
        correction = number % 3 != 2
        if slot is None:
            negate_first = rng.random() < 0.5
            first = _negated(statement, negate_first, rng).format(n=name, food=food)
            second = (
                _negated(statement, not negate_first, rng).format(n=name, food=food)
                if correction
                else _restated(first, rng)
            )
        else:
            value = slot(rng)
            first = statement.format(n=name, v=value)
            if correction:
                other = value
                while other == value:
                    other = slot(rng)
                second = statement.format(n=name, v=other)
            else:
                second = _restated(first, rng)
        old, new = rng.uniform(5, 70), rng.uniform(0, 3)
        cases.append(
            Case(
                id=f"gen-{number}",
                kind="correction" if correction else "restatement",
                query=query,
                writes=(Write(first, round(old)), Write(second, round(new))),
                current=second if correction else first,
            )
        )
    return cases


# --------------------------------------------------------------------------- running


def evaluate(cases: Sequence[Case], embedder: Any) -> dict[str, Any]:
    """The three rates for ``cases``, all written into one store (see the module docstring)."""
    writes = sorted(
        (
            (w.days_ago, i, j, w.text)
            for i, case in enumerate(cases)
            for j, w in enumerate(case.writes)
        ),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    mem = CognitiveMemory(embedder=embedder)
    actions: dict[str, int] = {}
    last: dict[int, str] = {}
    for days, i, j, text in writes:
        outcome = mem.write(
            text, memory_type="semantic", created_at=NOW - timedelta(days=days), now=NOW
        )
        actions[outcome.action] = actions.get(outcome.action, 0) + 1
        if j == len(cases[i].writes) - 1:
            last[i] = outcome.action
    stored = {m.text for m in mem.memories()}
    kept = current_first = merged = corrections = restatements = 0
    missed: list[str] = []
    for i, case in enumerate(cases):
        if case.kind == "restatement":
            restatements += 1
            merged += last[i] == "merged"
            if last[i] != "merged":
                missed.append(case.id)
            continue
        corrections += 1
        kept += case.current in stored
        texts = {w.text for w in case.writes}
        found = [
            r.text
            for r in mem.search(case.query, top_k=10, reinforce=False, now=NOW)
            if r.text in texts
        ]
        first = bool(found) and found[0] == case.current
        current_first += first
        if not first:
            missed.append(case.id)
    mem.close()
    return {
        "cases": len(cases),
        "corrections": corrections,
        "restatements": restatements,
        "kept": round(kept / max(corrections, 1), 4),
        "current_first": round(current_first / max(corrections, 1), 4),
        "merged": round(merged / max(restatements, 1), 4),
        "write_actions": dict(sorted(actions.items())),
        "missed": missed,
    }


def _targets(result: dict[str, Any]) -> dict[str, bool]:
    return {
        "kept_at_least_0.99": result["kept"] >= 0.99,
        "current_first_at_least_0.95": result["current_first"] >= 0.95,
        "merged_at_least_0.95": result["merged"] >= 0.95,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=120, help="cases per generated set")
    parser.add_argument("--seeds", default="1,2,3", help="one generated set per seed")
    args = parser.parse_args(argv)
    embedder, model_id = real_embedder()
    out: dict[str, Any] = {"embedder": model_id, "now": NOW.isoformat(), "sets": {}}
    out["sets"]["dev"] = evaluate(load_cases(dataset("corrections/dev.jsonl")), embedder)
    for seed in (int(s) for s in args.seeds.split(",")):
        out["sets"][f"generated-{seed}"] = evaluate(generate(args.cases, seed), embedder)
    out["targets"] = {name: _targets(result) for name, result in out["sets"].items()}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
