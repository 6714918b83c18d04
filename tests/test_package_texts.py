"""No evaluation text ships inside the package: LoCoMo is CC BY-NC (evaluation only), and
SciFact is for measuring, not for the model's self-check."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.data import dataset
from tests.conftest import needs_data

PACKAGE = Path(__file__).resolve().parents[1] / "core" / "cogmem"


def package_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py")))


@needs_data("locomo/dev.jsonl", "scifact")
def test_no_locomo_or_scifact_sentence_is_in_the_package() -> None:
    shipped = package_text().lower()
    sentences: set[str] = set()
    with dataset("locomo/dev.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            conversation = json.loads(line)
            sentences.update(turn["text"] for turn in conversation["turns"])
            sentences.update(qa["question"] for qa in conversation["qa"])
            names = (conversation["speaker_a"], conversation["speaker_b"])
            assert not any(f"{name}:" in package_text() for name in names), names
    with (dataset("scifact") / "queries.jsonl").open(encoding="utf-8") as fh:
        sentences.update(json.loads(line)["text"] for line in fh)
    found = [s for s in sentences if len(s) >= 25 and s.lower() in shipped]
    assert not found, found[:3]
