"""The README's headline figures are the ones the saved benchmark JSON holds
(``docs/benchmarks/*.json``, written by ``benchmarks/report.py``): a figure changes in the
README only with a run that backs it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def saved(name: str) -> Any:
    return json.loads((ROOT / "docs" / "benchmarks" / f"{name}.json").read_text(encoding="utf-8"))


def figures(pattern: str) -> tuple[float, ...]:
    found = re.search(pattern, README)
    assert found, f"the README no longer says {pattern!r}"
    return tuple(float(g.replace(",", "")) for g in found.groups())


def test_locomo_headline() -> None:
    data = saved("locomo")
    ours = data["cogmem"]["hybrid/decay_on"]["overall"]["recall@10"]
    peer = max(data["peers"][p]["recall@10"] for p in ("llamaindex-fusion", "langchain-ensemble"))
    assert figures(r"LoCoMo dev recall@10 (\d\.\d+) against (\d\.\d+) for the best peer") == (
        round(ours, 3),
        round(peer, 2),
    )


def test_scifact_headline() -> None:
    data = saved("scifact")
    ours = data["cogmem"]["hybrid/decay_on"]["ndcg@10"]
    peer = data["targets"]["best_peer_ndcg@10"]  # the peers as their users configure them
    assert figures(r"hybrid nDCG@10 (\d\.\d+) against (\d\.\d+)") == (
        round(ours, 3),
        round(peer, 3),
    )


def test_speed_headline() -> None:
    systems = saved("speed")["sizes"]["100000"]["systems"]
    p50 = {name: s["search"]["p50"] for name, s in systems.items()}
    assert figures(r"search p50 (\d+\.\d) ms against (\d+\.\d) ms \(LlamaIndex\) and (\d+) ms") == (
        round(p50["cogmem"], 1),
        round(p50["llamaindex"], 1),
        round(p50["langchain"]),
    )


def test_lifecycle_headline() -> None:
    recall = saved("lifecycle")["recall"]
    plain = recall["consolidated + deep_recall, penalty on the score (plain formula)"]
    assert figures(r"recall@10 (\d\.\d+) against (\d\.\d+) \(unconsolidated (\d\.\d+)") == (
        plain["recall@10"],
        recall["consolidated + deep_recall"]["recall@10"],
        recall["unconsolidated"]["recall@10"],
    )


def test_load_headline() -> None:
    data = saved("load")
    assert figures(r"Measured here \(2 shared cores\): (\d+(?:\.\d+)?) ops/s") == (
        round(data["throughput_ops_per_s"]),
    )
    assert data["errors"] == 0 and data["counts"]["match"]
