"""``cogmem demo``: a short agent history, searched, reinforced, and aged, with explanations.

It runs offline on the real embedder, in a persistent store it leaves behind for the
``cogmem`` inspection commands (``./cogmem-demo`` unless ``--path`` says otherwise), and shows:

1. a few searches, each result with the reason for its score;
2. the store closed and reopened: the same results (the lexical index is derived and saved);
   an updated fact comes second to its newer version;
3. reinforcement: a memory recalled at spaced intervals keeps its place months later, while an
   untouched one of the same age fades.

The folder is the demo's own: a new or empty folder, or one an earlier demo filled (marked by
``cogmem-demo.json``), which is emptied first. Any other folder is refused, never touched.
"""

from __future__ import annotations

import json
import shlex
import shutil
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .config import CognitiveMemoryConfig
from .embedding import Embedder, MiniLMEmbedder
from .inspection import StoreUnavailableError
from .lock import LOCK_NAME, FolderLock
from .memory import CognitiveMemory, MemoryInput
from .records import SearchResult
from .retention import half_life_days

__all__ = ["DEFAULT_FOLDER", "HISTORY", "MARKER", "prepare_folder", "run_demo"]

DEFAULT_FOLDER = Path("cogmem-demo")
#: The file that marks a folder as the demo's (so a later run may empty it).
MARKER = "cogmem-demo.json"

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

#: (days after START, type, importance, id, text). The ids are readable so that the README's
#: ``cogmem show`` command can name one.
HISTORY: tuple[tuple[int, str, float, str, str], ...] = (
    (
        0,
        "semantic",
        0.6,
        "priya",
        "The user's name is Priya and she works as a data engineer in Lisbon.",
    ),
    (
        0,
        "episodic",
        0.5,
        "airflow-migration",
        "Priya asked for help migrating the billing service's cron jobs to Airflow.",
    ),
    (
        1,
        "semantic",
        0.5,
        "code-first",
        "Priya prefers answers with code first and explanation after.",
    ),
    (
        3,
        "procedural",
        0.7,
        "deploy-billing",
        "To deploy the billing service: run `make release`, then approve in ArgoCD.",
    ),
    (
        9,
        "episodic",
        0.4,
        "marathon-training",
        "Priya mentioned she is training for the Lisbon half marathon in March.",
    ),
    (14, "semantic", 0.5, "billing-db", "The billing service's database is PostgreSQL 13."),
    (
        20,
        "episodic",
        0.5,
        "timezone-bug",
        "We debugged a timezone bug: Airflow schedules run in UTC, reports expect Lisbon time.",
    ),
    (
        33,
        "episodic",
        0.3,
        "nata-recipe",
        "Priya shared a recipe for pastéis de nata she wants to try.",
    ),
    (47, "semantic", 0.6, "dbt", "Priya's team adopted dbt for the analytics models."),
    (
        61,
        "episodic",
        0.5,
        "marathon-result",
        "Priya finished the half marathon in 1:52 and was very happy with it.",
    ),
    (75, "semantic", 0.5, "team-lead", "Priya now leads a team of three engineers."),
    (
        96,
        "semantic",
        0.5,
        "billing-db-moved",
        "The billing service moved from PostgreSQL to CockroachDB last week.",
    ),
    (
        103,
        "episodic",
        0.4,
        "cockroach-certs",
        "Priya asked how to rotate the CockroachDB certificates.",
    ),
)

QUERIES = (
    "what database does the billing service use?",
    "how do I deploy billing?",
    "did Priya run a race?",
)


def _print_results(out: Callable[[str], None], query: str, results: Sequence[SearchResult]) -> None:
    out(f'\n  search: "{query}"')
    for rank, r in enumerate(results, start=1):
        out(f"   {rank}. [{r.memory.memory_type}] {r.memory.text}  (id {r.id})")
        out(f"      {r.explanation}")


def prepare_folder(folder: Path) -> bool:
    """Make ``folder`` ready for the demo, and say whether an earlier demo's store was there.

    A missing folder is created; an empty one is used; one marked by an earlier demo
    (:data:`MARKER`) is emptied, under the store's lock (so never while it is open).

    Raises:
        StoreUnavailableError: ``folder`` is a file, or a folder holding anything else (it is
            left as it was).
        StoreLockedError: An earlier demo's store there is open in another process.
    """
    if folder.exists() and not folder.is_dir():
        raise StoreUnavailableError(f"{folder} is a file; the demo needs a folder")
    if not folder.exists() or not any(folder.iterdir()):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MARKER).write_text(json.dumps({"cogmem_demo": 1}), encoding="utf-8")
        return False
    if not (folder / MARKER).is_file():
        raise StoreUnavailableError(
            f"{folder} is not empty and was not made by the demo; the demo leaves it alone. "
            "Give it another folder: cogmem demo --path DIR"
        )
    lock = FolderLock(folder)
    lock.acquire("write")
    try:
        for entry in folder.iterdir():
            if entry.name.startswith(LOCK_NAME) or entry.name == MARKER:
                continue
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    finally:
        lock.release()
    return True


def run_demo(
    out: Callable[[str], None] = print,
    *,
    folder: Path = DEFAULT_FOLDER,
    embedder: Embedder | None = None,
    top_k: int = 4,
) -> None:
    """Run the demo in ``folder`` (see :func:`prepare_folder`), writing lines through ``out``."""
    started = time.perf_counter()
    replaced = prepare_folder(folder)
    embedder = embedder or MiniLMEmbedder()
    config = CognitiveMemoryConfig()
    now = START + timedelta(days=110)
    out("cogmem demo — a memory that forgets, reinforces and recalls like a person\n")
    earlier = " (an earlier demo's store was there: emptied first)" if replaced else ""
    out(f"Store: {folder.resolve()}{earlier}")
    out("Half-lives at importance 0.5 (days until R = 0.5 without recall):")
    for memory_type in ("episodic", "semantic", "core"):
        out(f"  {memory_type:<9} {half_life_days(memory_type, 0.5, config):6.1f} d")
    out("  procedural  never")

    with CognitiveMemory(path=folder, embedder=embedder, config=config) as mem:
        mem.add_many(
            [
                MemoryInput(
                    id=memory_id,
                    text=text,
                    memory_type=memory_type,
                    importance=importance,
                    created_at=START + timedelta(days=day),
                    session_id=f"s{day}",
                )
                for day, memory_type, importance, memory_id, text in HISTORY
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
        out(f"\n2. Closed and reopened: same results for every query: {same}")

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
    path = shlex.quote(str(folder))
    out(f"\nDone in {time.perf_counter() - started:.1f} s. The store stays in {folder.resolve()}.")
    out("Look into it (README, 'Inspect a store from the shell'):")
    out(f"  cogmem stats --path {path}")
    out(f'  cogmem search "billing database" --path {path} --explain')
    out(f"  cogmem show billing-db --path {path}")
