"""The ``cogmem`` command: the demo, and a look into any store.

::

    cogmem demo [--path DIR]                                       (default ./cogmem-demo)
    cogmem stats  --path DIR [--namespace NS] [--now ISO]
    cogmem search "query" --path DIR [--explain] [--top-k N] [--mode hybrid|dense|lexical]
                                     [--deep-recall] [--now ISO]
    cogmem show ID --path DIR [--now ISO]
    cogmem export FILE.jsonl --path DIR [--with-embeddings]        (FILE "-": stdout)
    cogmem import FILE.jsonl --path DIR [--re-embed]               (FILE "-": stdin)

Every store command takes ``--path DIR`` (a persistent store) or ``--host H [--port P]`` (a
Chroma server), ``--collection NAME`` (default ``cogmem``), ``--namespace NS`` (``stats`` and
``export``: every namespace unless given; ``search`` and ``show``: ``default`` unless given;
``import``: only the file's memories of that namespace) and ``--quiet`` (no progress bars and no
summary line). Inspecting never changes a store: ``search`` does not reinforce, and a path that
is not a cogmem store is refused rather than created (only ``import`` creates one, in a new or
empty folder).

Exit status: 0 on success; 2 when the arguments, the store, the server or the file named cannot
be used (one line on stderr, e.g. ``cogmem: /tmp/x: no such directory``); 1 when the command
itself failed (e.g. no memory has that id, a malformed line, ids already stored).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .embedding import Embedder
from .errors import CogmemError
from .inspection import (
    DEFAULT_COLLECTION,
    DEFAULT_PORT,
    StoreUnavailableError,
    format_record,
    format_results,
    format_stats,
    namespace_stats,
    open_memory,
)
from .memory import CognitiveMemory
from .wording import counted

if TYPE_CHECKING:
    from .transfer import ExportFile

__all__ = ["UsageError", "build_parser", "main"]

_DEFAULT_NAMESPACE = "default"


class UsageError(CogmemError):
    """The command line asks for something that cannot be done (exit status 2)."""


def _iso_time(value: str) -> datetime:
    """An ISO 8601 date or time (``2026-04-25``, ``2026-04-25T09:30``, ``...+02:00``, ``...Z``);
    without an offset, it is UTC."""
    try:
        moment = datetime.fromisoformat(value)  # Python 3.11 reads every ISO 8601 form here
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an ISO 8601 date or time (e.g. 2026-06-01, "
            "2026-06-01T12:00, 2026-06-01T12:00+02:00; without an offset, UTC)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an integer") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {number}")
    return number


def _port(value: str) -> int:
    number = _positive_int(value)
    if number > 65535:
        raise argparse.ArgumentTypeError(f"a port is at most 65535, got {number}")
    return number


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``cogmem`` (every subcommand)."""
    parser = argparse.ArgumentParser(
        prog="cogmem", description="cogmem: long-term memory for LLM agents"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = sub.add_parser(
        "demo",
        help="fill a store with an agent history and show how it recalls",
        description="Fill a persistent store with a short agent history, search it with "
        "explanations, and leave it for the other commands to look into.",
    )
    demo.add_argument(
        "--path",
        metavar="DIR",
        default="cogmem-demo",
        help="the store's folder: new, empty, or an earlier demo's (default ./cogmem-demo)",
    )

    store = argparse.ArgumentParser(add_help=False)
    where = store.add_argument_group("store")
    where.add_argument("--path", metavar="DIR", help="folder of a persistent store")
    where.add_argument("--host", metavar="HOST", help="host of a Chroma server (or --path)")
    where.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"server port (default {DEFAULT_PORT})"
    )
    where.add_argument(
        "--collection",
        default=DEFAULT_COLLECTION,
        metavar="NAME",
        help=f"the store's collection (default {DEFAULT_COLLECTION})",
    )
    where.add_argument(
        "--namespace",
        metavar="NS",
        help="stats, export: only NS (default every namespace); search, show: NS (default "
        "'default'); import: only the file's memories of NS",
    )
    where.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bars, no summary line"
    )
    clock = argparse.ArgumentParser(add_help=False)
    clock.add_argument(
        "--now",
        type=_iso_time,
        metavar="ISO",
        help="the time retention is computed at: an ISO date or time, UTC unless it has an "
        "offset (default: the clock)",
    )

    sub.add_parser(
        "stats",
        parents=[store, clock],
        help="counts by type and status, retention histogram",
        description="Counts by type and status and a histogram of retention, per namespace "
        "(every namespace unless --namespace).",
    )
    search = sub.add_parser(
        "search",
        parents=[store, clock],
        help="search without reinforcing anything",
        description="Search like CognitiveMemory.search, with reinforce=False: the store is "
        "left exactly as it was.",
    )
    search.add_argument("query", help="what to recall")
    search.add_argument("--explain", action="store_true", help="show why each result scored")
    search.add_argument(
        "--top-k", type=_positive_int, metavar="N", help="at most N results (default 10)"
    )
    search.add_argument(
        "--mode", choices=("hybrid", "dense", "lexical"), help="retrieval (default hybrid)"
    )
    search.add_argument(
        "--deep-recall", action="store_true", help="also return superseded memories"
    )
    show = sub.add_parser(
        "show", parents=[store, clock], help="every field of one memory, and its retention"
    )
    show.add_argument("id", help="the memory id")
    consolidate = sub.add_parser(
        "consolidate",
        parents=[store, clock],
        help="merge faded, similar memories into summaries (--dry-run: only show them)",
        description="CognitiveMemory.consolidate on one namespace (default 'default'): "
        "faded, similar memories become summaries, the originals superseded.",
    )
    consolidate.add_argument(
        "--dry-run", action="store_true", help="show the groups and summaries, write nothing"
    )
    export = sub.add_parser(
        "export",
        parents=[store],
        help="write every memory as JSON Lines",
        description="Write every memory (every status and field) as JSON Lines; "
        "FILE '-' writes to stdout.",
    )
    export.add_argument("file", metavar="FILE.jsonl")
    export.add_argument(
        "--with-embeddings",
        action="store_true",
        help="include the stored vectors (an import then embeds nothing)",
    )
    imp = sub.add_parser(
        "import",
        parents=[store],
        help="store the memories of a JSON Lines export",
        description="Store the memories of an export exactly as written (creates the store "
        "in a new or empty folder); FILE '-' reads stdin. Nothing is stored if any line is "
        "malformed or any id is already stored.",
    )
    imp.add_argument("file", metavar="FILE.jsonl")
    imp.add_argument(
        "--re-embed",
        action="store_true",
        help="ignore the file's embeddings and embed the texts with this store's embedder",
    )
    return parser


def main(argv: Sequence[str] | None = None, *, embedder: Embedder | None = None) -> int:
    """Entry point of the ``cogmem`` console script.

    Args:
        argv: The arguments (default ``sys.argv[1:]``).
        embedder: Embeds queries and imported texts (default: the offline MiniLM). Stores
            written with another embedder must be searched with that one.

    Returns:
        The exit status (see the module docstring).
    """
    args = build_parser().parse_args(argv)
    try:
        if args.command == "demo":
            from .demo import run_demo

            run_demo(folder=Path(args.path), embedder=embedder)
            return 0
        return _run(args, embedder)
    except (UsageError, StoreUnavailableError) as exc:
        _fail(exc)
        return 2
    except BrokenPipeError:  # e.g. `cogmem export - | head`: stop quietly
        _silence_stdout()
        return 1
    except OSError as exc:  # a file named on the command line, or the store's folder
        name = exc.filename or getattr(args, "file", None)
        _fail(f"{name}: {exc.strerror or exc}" if name else exc)
        return 2
    except CogmemError as exc:
        _fail(exc)
        return 1
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout has no file descriptor (e.g. captured)
        pass


def _fail(message: object) -> None:
    print(f"cogmem: {message}", file=sys.stderr)


def _run(args: argparse.Namespace, embedder: Embedder | None) -> int:
    if args.path is None and args.host is None:
        raise UsageError("give the store: --path DIR or --host HOST [--port PORT]")
    if args.path is not None and args.host is not None:
        raise UsageError("give either --path or --host, not both")
    export = None
    if args.command == "import":  # a bad file is refused before any store is opened or created
        from .transfer import read_jsonl

        export = read_jsonl(sys.stdin if args.file == "-" else os.fspath(args.file))
    memory = open_memory(
        path=args.path,
        host=args.host,
        port=args.port,
        collection=args.collection,
        embedder=embedder,
        create=export is not None,
        # Inspecting never writes: opened read-only (shared with other readers).
        read_only=args.command in ("stats", "search", "show", "export")
        or (args.command == "consolidate" and args.dry_run),
    )
    try:
        if args.namespace is not None and args.command != "import":
            _check_namespace(memory, args)
        if export is not None:
            _import(memory, args, export)
        else:
            command = {
                "stats": _stats,
                "search": _search,
                "show": _show,
                "export": _export,
                "consolidate": _consolidate,
            }
            command[args.command](memory, args)
    finally:
        memory.close()
    return 0


def _where(args: argparse.Namespace) -> str:
    return args.path if args.path is not None else f"{args.host}:{args.port}"


def _check_namespace(memory: CognitiveMemory, args: argparse.Namespace) -> None:
    known = memory.namespaces()
    if args.namespace not in known:
        raise UsageError(
            f"no namespace {args.namespace!r} in {_where(args)} "
            f"(namespaces: {', '.join(map(repr, known))})"
        )


def _stats(memory: CognitiveMemory, args: argparse.Namespace) -> None:
    namespaces = memory.namespaces() if args.namespace is None else [args.namespace]
    stats = [namespace_stats(memory, ns, now=args.now) for ns in namespaces]
    print(f"store {_where(args)}, collection {args.collection!r}")
    print(format_stats(stats))


def _search(memory: CognitiveMemory, args: argparse.Namespace) -> None:
    results = memory.search(
        args.query,
        top_k=args.top_k,
        mode=args.mode,
        now=args.now,
        deep_recall=args.deep_recall,
        namespace=args.namespace or _DEFAULT_NAMESPACE,
        reinforce=False,
    )
    print(format_results(results, explain=args.explain))


def _show(memory: CognitiveMemory, args: argparse.Namespace) -> None:
    record = memory.get(args.id, namespace=args.namespace or _DEFAULT_NAMESPACE)
    now = args.now or datetime.now(timezone.utc)
    print(format_record(record, now=now, config=memory.config))


def _consolidate(memory: CognitiveMemory, args: argparse.Namespace) -> None:
    report = memory.consolidate(
        args.now,
        namespace=args.namespace or _DEFAULT_NAMESPACE,
        dry_run=args.dry_run,
        progress=False if args.quiet else None,
    )
    verb = "would merge" if report.dry_run else "merged"
    print(
        f"{counted(report.candidates, 'faded memory', 'faded memories')}; {verb} "
        f"{len(report.superseded_ids)} into {counted(len(report.groups), 'summary', 'summaries')}"
    )
    for group in report.groups:
        print(f"- {group.summary_id} [{group.memory_type}] {group.text}")
        print(f"    from {', '.join(group.member_ids)}")


def _export(memory: CognitiveMemory, args: argparse.Namespace) -> None:
    from .transfer import export_jsonl

    target: str | TextIO = sys.stdout if args.file == "-" else os.fspath(args.file)
    count = export_jsonl(memory, target, with_embeddings=args.with_embeddings, **_moving(args))
    into = "stdout" if args.file == "-" else args.file
    _note(args, f"exported {counted(count, 'memory', 'memories')} to {into}")


def _import(memory: CognitiveMemory, args: argparse.Namespace, export: ExportFile) -> None:
    from .transfer import import_jsonl

    count = import_jsonl(memory, export, re_embed=args.re_embed, **_moving(args))
    _note(args, f"imported {counted(count, 'memory', 'memories')} into {_where(args)}")


def _moving(args: argparse.Namespace) -> dict[str, Any]:
    """What export and import take from the command line alike."""
    return {"namespace": args.namespace, "progress": not args.quiet}


def _note(args: argparse.Namespace, message: str) -> None:
    """A summary line on stderr, unless ``--quiet``."""
    if not args.quiet:
        print(message, file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
