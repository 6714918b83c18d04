"""The hand-written sets of benchmarks/versions.py are well formed: what a check names as
current or stale is a write of its case, word for word."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.versions import DATA, load_cases, load_fillers

SETS = sorted(p for p in DATA.glob("*.jsonl") if not p.name.endswith("fillers.jsonl"))


def _fillers(cases: Path) -> Path:
    return DATA / ("fillers.jsonl" if cases.stem == "dev" else f"{cases.stem}_fillers.jsonl")


def test_every_set_is_found() -> None:
    assert {p.stem for p in SETS} >= {"dev", "dev4", "heldout5", "heldout6", "heldout7", "heldout8"}


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_a_set_is_well_formed(path: Path) -> None:
    cases = load_cases(path)
    assert len({c.id for c in cases}) == len(cases)
    for case in cases:
        texts = [t for t, _ in case.writes]
        assert all(d >= 0 for _, d in case.writes), case.id
        assert case.kind in ("correction", "restatement", "lookalike", "profile"), case.id
        for check in case.checks:
            assert check.current in texts, case.id
            assert set(check.stale) <= set(texts), case.id
        if case.kind == "correction":
            assert case.checks[0].current == texts[-1], case.id
    assert len(load_fillers(_fillers(path))) >= 40
