"""``cogmem demo``: a short agent history, searched, reinforced, and aged, with explanations.

It runs offline on the real embedder, in a persistent store in a temporary folder, and shows:

1. a few searches, each result with the reason for its score;
2. the store closed and reopened: the same results (the lexical index is derived and saved);
   an updated fact comes second to its newer version;
3. reinforcement: a memory recalled at spaced intervals keeps its place months later, while an
   untouched one of the same age fades.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone

from .config import CognitiveMemoryConfig
from .embedding import Embedder, MiniLMEmbedder
from .memory import CognitiveMemory, MemoryInput
from .records import SearchResult
from .retention import half_life_days

__all__ = ["HISTORY", "run_demo"]

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

#: (days after START, type, importance, text)
HISTORY: tuple[tuple[int, str, float, str], ...] = (
    (0, "semantic", 0.6, "The user's name is Priya and she works as a data engineer in Lisbon."),
    (
        0,
        "episodic",
        0.5,
        "Priya asked for help migrating the billing service's cron jobs to Airflow.",
    ),
    (1, "semantic", 0.5, "Priya prefers answers with code first and explanation after."),
    (
        3,
        "procedural",
        0.7,
        "To deploy the billing service: run `make release`, then approve in ArgoCD.",
    ),
    (9, "episodic", 0.4, "Priya mentioned she is training for the Lisbon half marathon in March."),
    (14, "semantic", 0.5, "The billing service's database is PostgreSQL 13."),
    (
        20,
        "episodic",
        0.5,
        "We debugged a timezone bug: Airflow schedules run in UTC, reports expect Lisbon time.",
    ),
    (33, "episodic", 0.3, "Priya shared a recipe for pastéis de nata she wants to try."),
    (47, "semantic", 0.6, "Priya's team adopted dbt for the analytics models."),
    (61, "episodic", 0.5, "Priya finished the half marathon in 1:52 and was very happy with it."),
    (75, "semantic", 0.5, "Priya now leads a team of three engineers."),
    (96, "semantic", 0.5, "The billing service moved from PostgreSQL to CockroachDB last week."),
    (103, "episodic", 0.4, "Priya asked how to rotate the CockroachDB certificates."),
)

QUERIES = (
    "what database does the billing service use?",
    "how do I deploy billing?",
    "did Priya run a race?",
)


def _print_results(out: Callable[[str], None], query: str, results: Sequence[SearchResult]) -> None:
    out(f'\n  search: "{query}"')
    for rank, r in enumerate(results, start=1):
        out(f"   {rank}. [{r.memory.memory_type}] {r.memory.text}")
        out(f"      {r.explanation}")


def run_demo(
    out: Callable[[str], None] = print, *, embedder: Embedder | None = None, top_k: int = 4
) -> None:
    """Run the demo, writing lines through ``out``."""
    started = time.perf_counter()
    embedder = embedder or MiniLMEmbedder()
    config = CognitiveMemoryConfig()
    now = START + timedelta(days=110)
    out("cogmem demo — a memory that forgets, reinforces and recalls like a person\n")
    out("Half-lives at importance 0.5 (days until R = 0.5 without recall):")
    for memory_type in ("episodic", "semantic", "core"):
        out(f"  {memory_type:<9} {half_life_days(memory_type, 0.5, config):6.1f} d")
    out("  procedural  never")

    with tempfile.TemporaryDirectory(prefix="cogmem-demo-") as folder:
        with CognitiveMemory(path=folder, embedder=embedder, config=config) as mem:
            mem.add_many(
                [
                    MemoryInput(
                        text=text,
                        memory_type=memory_type,
                        importance=importance,
                        created_at=START + timedelta(days=day),
                        session_id=f"s{day}",
                    )
                    for day, memory_type, importance, text in HISTORY
                ],
                now=now,
            )
            out(f"\n1. {len(mem)} memories over {HISTORY[-1][0]} days, searched on day 110")
            out("   (score = relevance × R^α × penalties; reinforce=False leaves the store as is;")
            out("   the database changed on day 96: the old fact is penalised as an older version)")
            before = {}
            for query in QUERIES:
                results = mem.search(query, top_k=top_k, now=now, reinforce=False)
                before[query] = [r.id for r in results]
                _print_results(out, query, results)

        with CognitiveMemory(path=folder, embedder=embedder, config=config) as mem:
            same = all(
                [r.id for r in mem.search(q, top_k=top_k, now=now, reinforce=False)] == before[q]
                for q in QUERIES
            )
            out(f"\n2. Closed and reopened from {folder}: same results for every query: {same}")

            out("\n3. Reinforcement. Two episodes of the same age (day 20 and day 33): the")
            out("   timezone bug is recalled on days 30, 45 and 70; the recipe never.")
            for day in (30, 45, 70):
                mem.search(
                    "Airflow timezone bug",
                    top_k=1,
                    now=START + timedelta(days=day),
                    session_id=f"recall-{day}",
                )
            later = START + timedelta(days=200)
            for query in ("the timezone bug in Airflow", "the pastéis de nata recipe"):
                r = mem.search(query, top_k=1, now=later, reinforce=False)[0]
                m = r.memory
                out(
                    f'   day 200, "{query}": R = {r.explanation.retention:.2f} '
                    f"(stability {m.stability:.2f}, recalled {m.access_count}×)"
                )
    out(f"\nDone in {time.perf_counter() - started:.1f} s.")
