"""``python -m benchmarks.data``: the evaluation data fetched, checked and converted, offline here
(a fake server stands in for the public sources; no LoCoMo text is in the repository)."""

from __future__ import annotations

import hashlib
import io
import json
import urllib.error
import urllib.request
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks import data
from benchmarks.common import load_locomo


def _raw_locomo() -> list[dict[str, Any]]:
    """A made-up file of LoCoMo's shape: two conversations, one of them in the dev split."""
    talk = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely!", "img_url": ["x"],
             "blip_caption": "a photo of a cat", "query": "cat"},
        ],
        "session_2_date_time": "9:00 am on 1 June, 2023",  # a date with no turns after it
        "session_3_date_time": "10:00 am on 2 June, 2023",
        "session_3": [{"speaker": "Ana", "dia_id": "D3:1", "text": "The cat is called Miso."}],
    }  # fmt: skip
    qa = [
        {"question": "When did Ana adopt a cat?", "answer": 2023, "evidence": ["D1:1"],
         "category": 2},
        {"question": "What is the cat called?", "answer": "Miso",
         "evidence": ["D1:1; D3:1", "D", "D9:9"], "category": 4},
        {"question": "What did Ben adopt?", "evidence": ["D1:2"], "category": 5,
         "adversarial_answer": "a cat"},
    ]  # fmt: skip
    return [
        {"sample_id": "conv-99", "conversation": talk, "qa": qa},
        {"sample_id": "conv-26", "conversation": talk, "qa": qa},
    ]


def test_the_locomo_conversion_keeps_the_dev_split_and_cleans_evidence() -> None:
    (conv,) = data.locomo_dev(_raw_locomo())
    assert conv["sample_id"] == "conv-26" and conv["conv_index"] == 0
    assert [s["session"] for s in conv["sessions"]] == [1, 3]
    assert [t["dia_id"] for t in conv["turns"]] == ["D1:1", "D1:2", "D3:1"]
    assert conv["turns"][1] == {
        "dia_id": "D1:2",
        "session": 1,
        "session_date_time": "1:56 pm on 8 May, 2023",
        "speaker": "Ben",
        "text": "Lovely!",
        "blip_caption": "a photo of a cat",
    }
    first, second, third = conv["qa"]
    assert first["answer"] == "2023" and first["category_name"] == "temporal"
    assert second["evidence"] == ["D1:1", "D3:1"]  # split, "D" and a turn that is not dropped
    assert second["evidence_raw"] == ["D1:1; D3:1", "D", "D9:9"]
    assert third["answer"] is None and third["adversarial_answer"] == "a cat"


def _serve(monkeypatch: pytest.MonkeyPatch, payloads: dict[str, bytes]) -> None:
    def urlopen(request: urllib.request.Request, timeout: float = 0) -> io.BytesIO:
        url = request.full_url
        if url not in payloads:
            raise urllib.error.URLError("Name or service not known")
        return io.BytesIO(payloads[url])

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)


def _scifact_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("scifact/corpus.jsonl", '{"_id": "1", "title": "t", "text": "x"}\n' * 5183)
        archive.writestr("scifact/queries.jsonl", '{"_id": "1", "text": "q"}\n' * 1109)
        archive.writestr("scifact/qrels/train.tsv", "query-id\tcorpus-id\tscore\n1\t1\t1\n")
        archive.writestr("scifact/qrels/test.tsv", "query-id\tcorpus-id\tscore\n")
    return buffer.getvalue()


def test_fetch_downloads_checks_converts_and_copies(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    raw = json.dumps(_raw_locomo()).encode()
    zipped = _scifact_zip()
    sources = {
        "locomo": replace(data.SOURCES["locomo"], sha256=hashlib.sha256(raw).hexdigest()),
        "scifact": replace(data.SOURCES["scifact"], sha256=hashlib.sha256(zipped).hexdigest()),
    }
    monkeypatch.setattr(data, "SOURCES", sources)
    converted = "".join(
        json.dumps(c, ensure_ascii=False) + "\n" for c in data.locomo_dev(_raw_locomo())
    )
    monkeypatch.setattr(data, "LOCOMO_DEV_SHA256", hashlib.sha256(converted.encode()).hexdigest())
    _serve(monkeypatch, {sources["locomo"].url: raw, sources["scifact"].url: zipped})
    said: list[str] = []
    assert data.fetch(tmp_path, out=said.append) == []
    assert (tmp_path / "locomo" / "dev.jsonl").read_text(encoding="utf-8") == converted
    assert [c.sample_id for c in load_locomo(tmp_path / "locomo" / "dev.jsonl")] == ["conv-26"]
    assert (tmp_path / "scifact" / "qrels" / "train.tsv").exists()
    assert (tmp_path / "updates" / "dev.jsonl").read_bytes() == (
        data.SHIPPED / "updates" / "dev.jsonl"
    ).read_bytes()
    assert any("CC BY-NC" in line for line in said)
    assert data.fetch(tmp_path, out=said.append) == []  # a second run downloads nothing


def test_a_file_that_is_not_the_one_expected_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = data.SOURCES["locomo"]
    _serve(monkeypatch, {source.url: b"[]", data.SOURCES["scifact"].url: b"not a zip"})
    problems = data.fetch(tmp_path, out=lambda line: None)
    assert any("sha256" in p and "not the file expected" in p for p in problems)
    assert not (tmp_path / "locomo").exists() and not (tmp_path / "scifact").exists()


def test_offline_says_what_to_do(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _serve(monkeypatch, {})
    problems = data.fetch(tmp_path, out=lambda line: None)
    assert len(problems) == 2
    assert all("Offline?" in p and "COGMEM_DATA" in p for p in problems)
    assert data.main(["--dir", str(tmp_path), "--check"]) == 1


def test_a_missing_set_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COGMEM_DATA", str(tmp_path))
    with pytest.raises(data.DataMissing, match="make data"):
        data.dataset("locomo/dev.jsonl")
    assert data.dataset("updates/dev.jsonl") == data.SHIPPED / "updates" / "dev.jsonl"
