"""The benchmarks' evaluation data: where it is read from, and one command that fetches it.

    python -m benchmarks.data            # or: make data
    python -m benchmarks.data --check    # what is there, verified; downloads nothing

The benchmarks read their data from :func:`data_dir`: ``$COGMEM_DATA`` when set, else
``~/.cache/cogmem/data`` (``$XDG_CACHE_HOME/cogmem/data``). The command fills it:

* **LoCoMo** (Maharana et al., ACL 2024; CC BY-NC 4.0: evaluation only, never shipped with
  cogmem): ``locomo10.json`` from the ``snap-research/LoCoMo`` repository at commit ``3eb6f2c``,
  checked by sha256, converted into ``locomo/dev.jsonl`` (4 of its 10 conversations, one per
  line, evidence ids cleaned: packed ids split, ids naming no turn dropped; see
  :func:`locomo_dev`), checked by sha256 again.
* **SciFact** from BEIR (Wadden et al. 2020; claims CC BY 4.0, abstracts ODC-By 1.0):
  ``scifact.zip`` checked by sha256 (md5 ``5f7d1de60b170fc8027bb7898e2efca1`` as BEIR publishes
  it), unpacked into ``scifact/`` and checked (5,183 abstracts, 1,109 claims).
* **Knowledge updates** and **corrections**: cogmem's own sets, shipped in this repository
  (``benchmarks/data/``, the project's licence); copied beside the others.

Nothing is downloaded at run time by a benchmark, and nothing is written anywhere but the data
folder. Offline, the command says so and how to carry the data over.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SHIPPED",
    "SOURCES",
    "DataMissing",
    "data_dir",
    "dataset",
    "locomo_dev",
    "main",
]

SHIPPED = Path(__file__).resolve().parent / "data"
"""cogmem's own evaluation sets, in the repository (``updates/``, ``corrections/``)."""

_SHIPPED_SETS = ("updates/dev.jsonl", "corrections/dev.jsonl")


@dataclass(frozen=True)
class Source:
    """A public file the benchmarks need, and what it must be."""

    name: str
    url: str
    sha256: str
    size: int
    licence: str


SOURCES = {
    "locomo": Source(
        "LoCoMo",
        "https://raw.githubusercontent.com/snap-research/LoCoMo/"
        "3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376/data/locomo10.json",
        "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
        2_805_274,
        "CC BY-NC 4.0 (evaluation only; never shipped with cogmem)",
    ),
    "scifact": Source(
        "SciFact (BEIR)",
        "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip",
        "536e14446a0ba56ed1398ab1055f39fe852686ecad24a6306c80c490fa8e0165",
        2_816_079,
        "claims CC BY 4.0, abstracts ODC-By 1.0",
    ),
}

# What the LoCoMo conversion must produce (sha256 of locomo/dev.jsonl).
LOCOMO_DEV_SHA256 = "2f825c73bcacb409d15c87c111deaf8f560182345c99cdc9d057c10b71ec4539"
LOCOMO_DEV = ("conv-26", "conv-30", "conv-41", "conv-42")
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
SCIFACT_COUNTS = {"corpus.jsonl": 5183, "queries.jsonl": 1109}


class DataMissing(FileNotFoundError):
    """A benchmark's data is not in :func:`data_dir` (the message says how to get it)."""


def data_dir() -> Path:
    """Where the evaluation data is read from: ``$COGMEM_DATA``, else
    ``$XDG_CACHE_HOME/cogmem/data`` (``~/.cache/cogmem/data``)."""
    env = os.environ.get("COGMEM_DATA")
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "cogmem" / "data"


def dataset(relative: str) -> Path:
    """The path of one data file (``locomo/dev.jsonl``, ``scifact``, ...): in :func:`data_dir`,
    else, for cogmem's own sets, the copy shipped in the repository.

    Raises:
        DataMissing: It is in neither place (the message says how to get it).
    """
    path = data_dir() / relative
    if path.exists():
        return path
    shipped = SHIPPED / relative
    if relative in _SHIPPED_SETS and shipped.exists():
        return shipped
    raise DataMissing(
        f"{relative} is not in {data_dir()}: run `make data` (python -m benchmarks.data) to "
        "download the evaluation data there, or set COGMEM_DATA to a folder that holds it"
    )


# --------------------------------------------------------------------------- LoCoMo


def locomo_dev(raw: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dev split from LoCoMo's ``locomo10.json``: conversations conv-26, -30, -41, -42,
    each as ``{conv_index, sample_id, speaker_a, speaker_b, sessions, turns, qa}`` with turns in
    order and every question's evidence cleaned (packed ids such as ``"D8:6; D9:17"`` split;
    ids that are malformed or name no turn of the conversation dropped; ``evidence_raw`` keeps
    what LoCoMo gives)."""
    out = []
    chosen = [c for c in raw if c["sample_id"] in LOCOMO_DEV]
    for index, conv in enumerate(chosen):
        talk = conv["conversation"]
        numbers = sorted(int(m.group(1)) for k in talk if (m := re.fullmatch(r"session_(\d+)", k)))
        sessions, turns = [], []
        for n in numbers:
            when = talk[f"session_{n}_date_time"]
            sessions.append({"session": n, "date_time": when, "n_turns": len(talk[f"session_{n}"])})
            for t in talk[f"session_{n}"]:
                turn = {
                    "dia_id": t["dia_id"],
                    "session": n,
                    "session_date_time": when,
                    "speaker": t["speaker"],
                    "text": t["text"],
                }
                if "blip_caption" in t:
                    turn["blip_caption"] = t["blip_caption"]
                turns.append(turn)
        ids = {t["dia_id"] for t in turns}
        qa = []
        for i, q in enumerate(conv["qa"]):
            given = list(q.get("evidence", []))
            parts = [p.strip() for e in given for p in re.split(r"[;,]", e)]
            answer = q.get("answer")
            qa.append(
                {
                    "qa_index": i,
                    "question": q["question"],
                    "answer": None if answer is None else str(answer),
                    "adversarial_answer": q.get("adversarial_answer"),
                    "category": q["category"],
                    "category_name": CATEGORY_NAMES[q["category"]],
                    "evidence": list(dict.fromkeys(p for p in parts if p in ids)),
                    "evidence_raw": given,
                }
            )
        out.append(
            {
                "conv_index": index,
                "sample_id": conv["sample_id"],
                "speaker_a": talk["speaker_a"],
                "speaker_b": talk["speaker_b"],
                "sessions": sessions,
                "turns": turns,
                "qa": qa,
            }
        )
    return out


def _locomo(raw: bytes, target: Path) -> None:
    lines = "".join(
        json.dumps(c, ensure_ascii=False) + "\n" for c in locomo_dev(json.loads(raw))
    ).encode("utf-8")
    _check(lines, LOCOMO_DEV_SHA256, "the converted locomo/dev.jsonl")
    _publish({"locomo/dev.jsonl": lines}, target)


# --------------------------------------------------------------------------- SciFact


def _scifact(raw: bytes, target: Path) -> None:
    files: dict[str, bytes] = {}
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        for name in ("corpus.jsonl", "queries.jsonl", "qrels/train.tsv", "qrels/test.tsv"):
            files[f"scifact/{name}"] = archive.read(f"scifact/{name}")
    for name, count in SCIFACT_COUNTS.items():
        lines = files[f"scifact/{name}"].count(b"\n")
        if lines != count:
            raise ValueError(f"scifact/{name} holds {lines} lines, expected {count}")
    _publish(files, target)


# --------------------------------------------------------------------------- plumbing


def _check(data: bytes, sha256: str, what: str) -> None:
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise ValueError(f"{what} has sha256 {got}, expected {sha256}: not the file expected")


def _publish(files: dict[str, bytes], target: Path) -> None:
    """Write ``files`` under ``target``, each atomically (a temporary file, then a rename)."""
    for relative, data in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)


def _download(source: Source, timeout: float) -> bytes:
    """The bytes of ``source``, checked (a tqdm bar on a terminal)."""
    from tqdm.auto import tqdm

    request = urllib.request.Request(source.url, headers={"User-Agent": "cogmem-benchmarks"})
    chunks = []
    with (
        urllib.request.urlopen(request, timeout=timeout) as response,
        tqdm(total=source.size, unit="B", unit_scale=True, desc=source.name) as bar,
    ):
        while chunk := response.read(1 << 16):
            chunks.append(chunk)
            bar.update(len(chunk))
    data = b"".join(chunks)
    _check(data, source.sha256, f"{source.name} ({source.url})")
    return data


_MAKERS = {"locomo": _locomo, "scifact": _scifact}
_MARKS = {"locomo": "locomo/dev.jsonl", "scifact": "scifact/corpus.jsonl"}


def fetch(target: Path, *, timeout: float = 60.0, out: Any = print) -> list[str]:
    """Fill ``target`` with every data set it lacks; returns the problems (empty: all there)."""
    problems = []
    for key, source in SOURCES.items():
        if (target / _MARKS[key]).exists():
            out(f"{source.name}: already in {target}")
            continue
        try:
            _MAKERS[key](_download(source, timeout), target)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            problems.append(
                f"{source.name}: cannot download {source.url} ({getattr(exc, 'reason', exc)}). "
                "Offline? Run `python -m benchmarks.data --dir DIR` on a connected machine, copy "
                f"DIR here and set COGMEM_DATA=DIR (or copy it to {target})."
            )
            continue
        except (ValueError, KeyError, zipfile.BadZipFile) as exc:
            problems.append(f"{source.name}: {exc}")
            continue
        out(f"{source.name}: {target / _MARKS[key]} ({source.licence})")
    for relative in _SHIPPED_SETS:
        path = target / relative
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(SHIPPED / relative, path)
        out(f"cogmem's own set: {path}")
    return problems


def check(target: Path, out: Any = print) -> list[str]:
    """What of the data is in ``target`` and checks out; returns what is missing or wrong."""
    problems = []
    locomo = target / "locomo" / "dev.jsonl"
    if not locomo.exists():
        problems.append(f"LoCoMo: {locomo} missing")
    elif hashlib.sha256(locomo.read_bytes()).hexdigest() != LOCOMO_DEV_SHA256:
        problems.append(f"LoCoMo: {locomo} is not the expected dev split (sha256 differs)")
    for name, count in SCIFACT_COUNTS.items():
        path = target / "scifact" / name
        if not path.exists():
            problems.append(f"SciFact: {path} missing")
        elif path.read_bytes().count(b"\n") != count:
            problems.append(f"SciFact: {path} does not hold {count} lines")
    for line in problems or [f"all the evaluation data is in {target}"]:
        out(line)
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fetch the benchmarks' evaluation data.")
    parser.add_argument("--dir", type=Path, default=None, help="default: $COGMEM_DATA or cache")
    parser.add_argument("--check", action="store_true", help="only check what is there")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per download")
    args = parser.parse_args(argv)
    target = (args.dir or data_dir()).expanduser()
    if args.check:
        return 1 if check(target) else 0
    problems = fetch(target, timeout=args.timeout)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"COGMEM_DATA={target}  (the benchmarks read it from there)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
