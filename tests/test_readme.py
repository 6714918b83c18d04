"""Every example in the README runs as printed: each Python block, and the inspection commands on
the store ``cogmem demo`` leaves behind.

The blocks are read with markdown-it (fenced code and the heading above it) and run one by one,
each in a fresh namespace, in an empty working directory, on the real embedder. A block that
states what it prints is checked for it. The one substitution: the server block's port is the
test server's, not 8000.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from cogmem import cli

README = Path(__file__).resolve().parents[1] / "README.md"

pytestmark = pytest.mark.model


@dataclass(frozen=True)
class Block:
    """One fenced code block of the README."""

    heading: str
    line: int  # 1-based line of the opening fence
    language: str
    code: str


def readme_blocks() -> list[Block]:
    """The README's fenced code blocks, each with the heading it is under."""
    tokens = MarkdownIt("commonmark").parse(README.read_text(encoding="utf-8"))
    blocks, heading = [], ""
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            heading = tokens[i + 1].content
        elif token.type == "fence" and token.map is not None:
            language = token.info.split()[0] if token.info else ""
            blocks.append(Block(heading, token.map[0] + 1, language, token.content))
    return blocks


PYTHON = [b for b in readme_blocks() if b.language == "python"]

# What the blocks that say what they print must print: (heading, which block under it) -> text.
PRINTS = {
    ("LangChain", 0): ["Dark mode."],
    ("LangChain", 1): ["In August.", "{'text': 'Ana is vegetarian.'}", "The user likes dark UIs."],
    ("LlamaIndex", 1): [
        "['The office moved to Porto.', 'The office is in Lisbon.']",
        "user: I am learning the piano.",
    ],
    ("Memory lifecycle", 0): ["superseded", "contradiction 0.300", "MaintenanceReport("],
    ("Corrections and repeats", 0): [
        """merged new_version ("'3' -> '13'",)""",
        """May 13.", "The user's flight to Lisbon is on May 3."]""",  # May 13 first
    ],
}


def _block_id(block: Block) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", block.heading.lower()).strip("-")
    return f"L{block.line}-{slug}"


def _position(block: Block) -> int:
    """Which Python block under its heading this is (0 for the first)."""
    same = [b for b in PYTHON if b.heading == block.heading]
    return same.index(block)


def test_the_readme_has_the_examples_it_promises() -> None:
    headings = {b.heading for b in PYTHON}
    for heading in ("Use", "A Chroma server", "LangChain", "LlamaIndex", "Plots"):
        assert heading in headings
    assert {"Memory lifecycle", "Corrections and repeats"} <= headings
    assert len(PYTHON) >= 9


@pytest.mark.parametrize("block", PYTHON, ids=_block_id)
def test_readme_python_block_runs(
    block: Block,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    code = block.code
    if "http_client(" in code:
        server: Any = request.getfixturevalue("chroma_server")
        code = code.replace("8000", str(server.port))
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    exec(compile(code, f"README.md:{block.line}", "exec"), namespace)
    out = capsys.readouterr().out
    for fragment in PRINTS.get((block.heading, _position(block)), []):
        assert fragment in out, f"README.md:{block.line} printed:\n{out}"
    if "plot." in code:
        import matplotlib.pyplot as plt

        assert (tmp_path / "explanations.png").stat().st_size > 0
        plt.close("all")


def _shell_commands(heading: str) -> list[list[str]]:
    """The ``cogmem`` command lines of the bash block under ``heading``, comments dropped."""
    (block,) = [b for b in readme_blocks() if b.language == "bash" and b.heading == heading]
    lines = [shlex.split(line, comments=True) for line in block.code.splitlines()]
    return [argv for argv in lines if argv and argv[0] == "cogmem"]


def test_readme_inspection_commands_work_on_the_demo_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["demo"]) == 0  # what `make demo` runs
    demo = capsys.readouterr().out
    assert f"The store stays in {tmp_path / 'cogmem-demo'}" in demo
    commands = _shell_commands("Inspect a store from the shell")
    assert [argv[1] for argv in commands] == [
        "stats",
        "search",
        "show",
        "consolidate",
        "export",
        "import",
    ]
    for argv in commands:
        assert cli.main(argv[1:]) == 0, argv
        out = capsys.readouterr().out
        assert out.strip() or argv[1] in ("export", "import"), argv
        if argv[1] == "show":
            assert "billing-db" in out and "half-life" in out
        if argv[1] == "search":
            assert "id billing-db " in out and "relevance" in out  # --explain
    exported = (tmp_path / "memories.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(exported) == 1 + 13  # a header, then every memory of the demo
    assert cli.main(["stats", "--path", "demo-copy"]) == 0
    assert "13 memories" in capsys.readouterr().out
