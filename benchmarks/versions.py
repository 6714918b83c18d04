"""The newest truth first: versions, restatements, look-alikes and profiles, on every write path.
Prints one JSON object.

A case is a few statements said over time (``benchmarks/data/versions/README.md``). Each case
runs in a store of its own, among 40 unrelated memories drawn from the set's fillers (created
over the 120 days before), its writes made oldest first at their own time, its questions
asked one day after the last write, ``top_k=10``, ``reinforce=False``. Three write paths:

* ``semantic``: ``CognitiveMemory.write(text, memory_type="semantic")``;
* ``default``: ``CognitiveMemory.write(text)``, the default type (``episodic-default``: the
  same with ``default_memory_type="episodic"``, the default before ``"auto"``);
* ``middleware``: each statement is a user turn of a LangChain ``create_agent`` agent with
  ``CognitiveMemoryMiddleware`` (defaults: the exchange stored after the turn, ``k=5``
  recalled into the system message), and each question a turn too: what the middleware puts
  in the system message for it is what is scored.

Shares, overall and by style:

* ``current_first``: a correction's check, where among the case's statements that the question
  recalls, the first is the current one (it must be recalled);
* ``kept``: the statements of corrections, look-alikes and profiles stored, not merged away;
* ``merged``: restatements whose later write was merged into the first;
* ``linked``: look-alikes whose later write was linked to the first as its version or merged;
* ``own_first``: the checks of look-alikes and profiles where the statement asked about comes
  first among the case's statements.

    python benchmarks/versions.py                          # dev set, three paths
    python benchmarks/versions.py --set PATH/cases.jsonl --paths semantic,default
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import read_jsonl
from benchmarks.evaluate import real_embedder
from cogmem import CognitiveMemory, CognitiveMemoryConfig

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
FILLERS_PER_CASE = 40
DATA = Path(__file__).resolve().parent / "data" / "versions"


@dataclass(frozen=True)
class Check:
    query: str
    current: str
    stale: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # correction | restatement | lookalike | profile
    style: str
    writes: tuple[tuple[str, float], ...]  # (text, days before NOW)
    checks: tuple[Check, ...]


def load_cases(path: Path) -> list[Case]:
    """The cases of a versions JSON Lines file."""
    return [
        Case(
            id=str(obj["id"]),
            kind=str(obj["kind"]),
            style=str(obj["style"]),
            writes=tuple((str(w["text"]), float(w["days_ago"])) for w in obj["writes"]),
            checks=tuple(
                Check(str(c["query"]), str(c["current"]), tuple(map(str, c.get("stale", ()))))
                for c in obj["checks"]
            ),
        )
        for obj in read_jsonl(path)
    ]


def load_fillers(path: Path) -> list[str]:
    return [str(obj["text"]) for obj in read_jsonl(path)]


def _fillers(case: Case, pool: Sequence[str]) -> list[tuple[str, datetime]]:
    rng = random.Random(case.id)
    chosen = rng.sample(list(pool), min(FILLERS_PER_CASE, len(pool)))
    return [(text, NOW - timedelta(days=rng.uniform(0, 120))) for text in chosen]


# --------------------------------------------------------------------------- write paths
# A path stores the case's writes and answers a question with the texts it recalls, in order:
# ``run(case, fillers) -> (actions per write, ask)``.
Ask = Callable[[str], list[str]]
Run = Callable[[Case, list[tuple[str, datetime]]], tuple[list[str], Ask]]


class _Stores:
    """One in-process store per case: the last one closed when the next opens."""

    def __init__(self, embedder: Any, config: CognitiveMemoryConfig) -> None:
        self.embedder, self.config = embedder, config
        self.open: CognitiveMemory | None = None

    def fresh(self) -> CognitiveMemory:
        self.close()
        self.open = CognitiveMemory(embedder=self.embedder, config=self.config)
        return self.open

    def close(self) -> None:
        if self.open is not None:
            self.open.close()
            self.open = None


def _when(days_ago: float) -> datetime:
    return NOW - timedelta(days=days_ago)


def _asked_at(case: Case) -> datetime:
    return _when(min(d for _, d in case.writes)) + timedelta(days=1)


def direct(
    embedder: Any, config: CognitiveMemoryConfig, memory_type: str | None
) -> tuple[Run, Callable[[], None]]:
    """Writes through ``CognitiveMemory.write`` (with ``memory_type``, or the default)."""
    stores = _Stores(embedder, config)

    def run(case: Case, fillers: list[tuple[str, datetime]]) -> tuple[list[str], Ask]:
        mem = stores.fresh()
        typed = {} if memory_type is None else {"memory_type": memory_type}
        mem.add_many(
            [{"text": t, "created_at": at, **typed} for t, at in fillers],
            now=_when(min(d for _, d in case.writes)),
        )
        actions = [
            mem.write(text, created_at=_when(days), now=_when(days), **typed).action
            for text, days in case.writes
        ]
        at = _asked_at(case)
        return actions, lambda q: [r.text for r in mem.search(q, top_k=10, reinforce=False, now=at)]

    return run, stores.close


def through_middleware(
    embedder: Any, config: CognitiveMemoryConfig
) -> tuple[Run, Callable[[], None]]:
    """Each statement and question a turn of a ``create_agent`` agent with the middleware."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage

    from langchain_cogmem import CognitiveMemoryMiddleware

    class Seen(AgentMiddleware):  # type: ignore[misc]
        """Keeps the system message the model is given."""

        def __init__(self) -> None:
            super().__init__()
            self.system = ""

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            self.system = request.system_message.text if request.system_message else ""
            return handler(request)

    stores = _Stores(embedder, config)

    def run(case: Case, fillers: list[tuple[str, datetime]]) -> tuple[list[str], Ask]:
        mem = stores.fresh()
        mem.add_many([{"text": t, "created_at": at} for t, at in fillers], now=NOW)
        clock = [NOW]
        seen = Seen()
        middleware = CognitiveMemoryMiddleware(mem, now=lambda: clock[0], reinforce=False)
        replies = iter([AIMessage(content="Got it.")] * 1000)
        agent = create_agent(GenericFakeChatModel(messages=replies), middleware=[middleware, seen])
        actions = []
        for text, days in case.writes:
            clock[0] = _when(days)
            before = len(mem)
            agent.invoke({"messages": [HumanMessage(content=text)]})
            actions.append("stored" if len(mem) > before else "merged")

        def ask(query: str) -> list[str]:
            clock[0] = _asked_at(case)
            agent.invoke({"messages": [HumanMessage(content=query)]})
            return [line for line in seen.system.splitlines()[1:]]

        return actions, ask

    return run, stores.close


# --------------------------------------------------------------------------- scoring
def _first(case: Case, recalled: list[str]) -> str | None:
    """The first of the case's statements among the texts recalled (a recalled text holds a
    statement when it contains it: the middleware recalls whole exchanges and renders them)."""
    for text in recalled:
        for statement, _ in sorted(case.writes, key=lambda w: -len(w[0])):
            if statement in text:
                return statement
    return None


def evaluate(cases: Sequence[Case], fillers: Sequence[str], run: Run) -> dict[str, Any]:
    """Every share of the module docstring for one write path, overall and by style."""
    tally: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    missed: dict[str, list[str]] = defaultdict(list)

    def count(metric: str, style: str, ok: bool, case_id: str, good: bool | None = None) -> None:
        """``ok`` counts toward the share; ``good`` (default ``ok``) is whether the case
        went as it should (a look-alike that is linked went wrong)."""
        for key in ("all", style):
            tally[metric][key][0] += int(ok)
            tally[metric][key][1] += 1
        if not (ok if good is None else good):
            missed[metric].append(case_id)

    for case in cases:
        actions, ask = run(case, _fillers(case, fillers))
        later = actions[1:]
        if case.kind == "restatement":
            count("merged", case.style, later[-1] == "merged", case.id)
            continue
        for action in actions:
            count("kept", case.style, action != "merged", case.id)
        if case.kind == "lookalike":
            linked = any(a in ("new_version", "merged") for a in later)
            count("linked", case.style, linked, case.id, good=not linked)
        metric = "current_first" if case.kind == "correction" else "own_first"
        for check in case.checks:
            count(metric, case.style, _first(case, ask(check.query)) == check.current, case.id)
    out: dict[str, Any] = {}
    for metric, by_style in sorted(tally.items()):
        ok, n = by_style.pop("all")
        out[metric] = {
            "share": round(ok / n, 4),
            "n": n,
            "by_style": {s: round(a / b, 4) for s, (a, b) in sorted(by_style.items())},
            "missed": sorted(set(missed[metric])),
        }
    return out


def targets(result: dict[str, Any], path: str) -> dict[str, bool]:
    """The issue's bars for one path."""
    first = 0.95 if path == "semantic" else 0.90
    found = {
        f"current_first_at_least_{first}": result["current_first"]["share"] >= first,
        "kept_1.0": result["kept"]["share"] >= 1.0,
    }
    if "merged" in result and path != "middleware":  # it stores every exchange as itself
        found["merged_at_least_0.75"] = result["merged"]["share"] >= 0.75
    if "linked" in result:
        found["linked_at_most_0.05"] = result["linked"]["share"] <= 0.05
    return found


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="dev", help="dev, or a path to a cases .jsonl")
    parser.add_argument("--fillers", default=None, help="fillers .jsonl (default: the set's)")
    parser.add_argument("--paths", default="semantic,default,middleware")
    parser.add_argument("--config", default="{}", help="CognitiveMemoryConfig fields, as JSON")
    args = parser.parse_args(argv)
    cases_path = DATA / f"{args.set}.jsonl" if args.set == "dev" else Path(args.set)
    fillers_path = Path(args.fillers) if args.fillers else DATA / "fillers.jsonl"
    if args.set != "dev" and not args.fillers:
        fillers_path = cases_path.with_name("fillers.jsonl")
    cases, fillers = load_cases(cases_path), load_fillers(fillers_path)
    embedder, model_id = real_embedder()
    config = CognitiveMemoryConfig().replace(**json.loads(args.config))
    out: dict[str, Any] = {
        "embedder": model_id,
        "set": str(cases_path.name),
        "cases": len(cases),
        "config": json.loads(args.config),
        "paths": {},
    }
    for path in args.paths.split(","):
        started = time.perf_counter()
        if path == "middleware":
            run, close = through_middleware(embedder, config)
        elif path == "episodic-default":  # the default type before "auto", for comparison
            run, close = direct(embedder, config.replace(default_memory_type="episodic"), None)
        else:
            run, close = direct(embedder, config, "semantic" if path == "semantic" else None)
        try:
            result = evaluate(cases, fillers, run)
        finally:
            close()
        result["targets"] = targets(result, path)
        result["seconds"] = round(time.perf_counter() - started, 1)
        out["paths"][path] = result
        print(
            f"{path}: "
            + ", ".join(
                f"{k} {v['share']}"
                for k, v in result.items()
                if isinstance(v, dict) and "share" in v
            ),
            file=sys.stderr,
        )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
