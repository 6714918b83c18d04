"""The ``cogmem`` command: ``cogmem demo``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .errors import CogmemError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cogmem`` console script."""
    parser = argparse.ArgumentParser(prog="cogmem", description="cogmem: memory for LLM agents")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="fill a store with an agent history and show how it recalls")
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            from .demo import run_demo

            run_demo()
    except CogmemError as exc:
        print(f"cogmem: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
