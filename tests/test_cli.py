"""The ``cogmem`` command: inspecting a store never changes it, and errors are one clear line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from cogmem import CognitiveMemory, MemoryInput
from cogmem import cli as cli_module
from cogmem.cli import main
from cogmem.clients import http_client
from cogmem.inspection import explanation_rows
from cogmem.testing import HashingEmbedder
from cogmem.transfer import stored_records
from tests.chroma_server import free_port
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parent.parent
WHEN = (NOW + timedelta(days=30)).isoformat()


def _fill(memory: CognitiveMemory) -> None:
    memory.add_many(
        [
            {
                "text": "The billing service uses PostgreSQL.",
                "memory_type": "semantic",
                "id": "pg",
                "created_at": NOW - timedelta(days=200),
            },
            {
                "text": "The billing service moved to CockroachDB.",
                "memory_type": "semantic",
                "id": "crdb",
                "created_at": NOW - timedelta(days=5),
                "tags": ["db"],
            },
            {
                "text": "Priya ran the Lisbon half marathon.",
                "id": "run",
                "created_at": NOW - timedelta(days=60),
                "pinned": True,
            },
            {
                "text": "Deploy billing with make release.",
                "memory_type": "procedural",
                "id": "deploy",
                "created_at": NOW - timedelta(days=90),
            },
            {"text": "Another user's note.", "namespace": "user-2", "id": "n1", "created_at": NOW},
        ],
        now=NOW,
    )
    memory.supersede("pg", "crdb")


@pytest.fixture
def store(tmp_path: Path, embedder: HashingEmbedder) -> Path:
    folder = tmp_path / "store"
    with CognitiveMemory(path=folder, embedder=embedder) as memory:
        _fill(memory)
    return folder


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv, embedder=HashingEmbedder())
    out, err = capsys.readouterr()
    return code, out, err


def _snapshot(folder: Path) -> dict[str, object]:
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as memory:
        return {(ns, r.id): r for ns in memory.namespaces() for r in stored_records(memory, ns)}


def test_stats_counts_by_type_and_status_with_a_retention_histogram(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["stats", "--path", str(store), "--now", WHEN], capsys)
    assert code == 0 and err == ""
    assert f"store {store}, collection 'cogmem'" in out
    assert "namespace 'default': 4 memories (1 pinned, 4 never recalled)" in out
    assert "namespace 'user-2': 1 memory (0 pinned" in out  # one, not "1 memories"
    default = out.split("namespace 'user-2'")[0]
    table = [line.split() for line in default.splitlines() if line[:2] == "  " and line[2] != " "]
    rows = {cells[0]: cells[1:] for cells in table}
    assert rows["type"] == ["active", "superseded", "total"]
    assert rows["semantic"] == ["1", "1", "2"]
    assert rows["episodic"] == ["1", "0", "1"]
    assert rows["procedural"] == ["1", "0", "1"]
    bars = [line for line in default.splitlines() if line.startswith("    0.") and "-" in line]
    assert len(bars) == 10
    assert sum(int(line.split()[-1]) for line in bars) == 4
    assert bars[-1].split()[-1] == "2"  # pinned and procedural: R = 1
    assert "retention R at 2026-07-01T12:00:00+00:00" in out


def test_stats_of_one_namespace(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["stats", "--path", str(store), "--namespace", "user-2"], capsys)
    assert code == 0
    assert "namespace 'user-2': 1 memory (0 pinned" in out  # one, not "1 memories"
    assert "'default'" not in out


def test_search_explains_and_never_reinforces(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(store)
    code, out, err = _run(
        ["search", "the billing service", "--path", str(store), "--explain", "--now", WHEN],
        capsys,
    )
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(" 1. ") and "CockroachDB" in lines[0]
    assert lines[1].strip().startswith("id crdb  created 2026-05-27T12:00:00+00:00")
    assert lines[2].strip().startswith("score ") and "relevance" in lines[2] and "R^α" in lines[2]
    assert "PostgreSQL" not in out  # superseded: only with --deep-recall
    assert _snapshot(store) == before

    code, out, _ = _run(
        ["search", "PostgreSQL", "--path", str(store), "--deep-recall", "--top-k", "1"], capsys
    )
    assert code == 0 and len(out.splitlines()) == 1 and "PostgreSQL" in out
    assert _snapshot(store) == before


def test_search_options_reach_the_search(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        ["search", "billing", "--path", str(store), "--mode", "lexical", "--explain"], capsys
    )
    assert code == 0
    assert "bm25 #1" in out and "dense #" not in out
    code, out, _ = _run(
        ["search", "note", "--path", str(store), "--namespace", "user-2", "--top-k", "1"], capsys
    )
    assert "Another user's note." in out
    code, out, _ = _run(["search", "zzz qqq", "--path", str(store), "--mode", "lexical"], capsys)
    assert code == 0 and out.strip() == "no memory matches"


def test_show_prints_every_field_and_retention(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["show", "crdb", "--path", str(store), "--now", WHEN], capsys)
    assert code == 0
    fields = {line[:17].strip(): line[18:] for line in out.splitlines()}
    assert fields["id"] == "crdb"
    assert fields["memory_type"] == "semantic"
    assert fields["tags"] == "db"
    assert fields["created_at"] == "2026-05-27T12:00:00+00:00"
    assert fields["last_accessed_at"] == "-"
    assert fields["retention"].startswith("0.") and "35.0 days since last access" in out
    assert fields["half-life"].endswith("days at this stability")
    code, out, _ = _run(["show", "deploy", "--path", str(store)], capsys)
    assert "never decays" in out


def test_show_an_unknown_id_is_one_line_and_exit_1(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["show", "nope", "--path", str(store)], capsys)
    assert code == 1 and out == ""
    assert err == "cogmem: no memory with id 'nope' in namespace 'default'\n"


def test_export_then_import_through_the_cli(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "copy"
    dump = tmp_path / "dump.jsonl"
    code, _, err = _run(["export", str(dump), "--path", str(store), "--with-embeddings"], capsys)
    assert code == 0 and err == f"exported 5 memories to {dump}\n"
    assert all("embedding" in json.loads(line) for line in dump.read_text().splitlines()[1:])
    code, _, err = _run(["import", str(dump), "--path", str(target)], capsys)
    assert code == 0 and err == f"imported 5 memories into {target}\n"
    assert _snapshot(target) == _snapshot(store)

    code, _, err = _run(["import", str(dump), "--path", str(target)], capsys)
    assert code == 1 and "already stored" in err and err.count("\n") == 1


def test_export_to_stdout_and_import_from_stdin(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = _run(
        ["export", "-", "--path", str(store), "--namespace", "user-2", "--quiet"], capsys
    )
    assert code == 0 and err == ""
    header, line = out.splitlines()
    assert json.loads(header)["cogmem_export"] == 1 and json.loads(line)["id"] == "n1"

    monkeypatch.setattr("sys.stdin", io.StringIO(out))
    target = tmp_path / "empty"
    target.mkdir()
    code, _, err = _run(["import", "-", "--path", str(target), "-q"], capsys)
    assert code == 0 and err == ""
    assert list(_snapshot(target)) == [("user-2", "n1")]


def _assert_one_line(err: str, expected: str) -> None:
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("cogmem: ") and expected in err


def test_a_missing_folder_is_refused_and_not_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no" / "store"
    for argv in (["stats"], ["search", "x"], ["show", "x"], ["export", str(tmp_path / "o")]):
        code, out, err = _run([*argv, "--path", str(missing)], capsys)
        assert code == 2 and out == ""
        _assert_one_line(err, f"{missing}: no such directory")
    assert not (tmp_path / "no").exists()
    assert not (tmp_path / "o").exists()


def test_a_folder_that_is_not_a_store_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello")
    dump = tmp_path / "one.jsonl"
    dump.write_text('{"id": "a", "text": "t", "created_at": "2026-01-01T00:00:00Z"}\n')
    for argv in (["stats"], ["import", str(dump)]):
        code, _, err = _run([*argv, "--path", str(folder)], capsys)
        assert code == 2
        _assert_one_line(err, f"{folder} is not a cogmem store (it has no chroma.sqlite3)")
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _run(["stats", "--path", str(empty)], capsys)
    assert code == 2 and "is not a cogmem store" in err
    assert list(empty.iterdir()) == []
    code, _, err = _run(["stats", "--path", str(folder / "notes.txt")], capsys)
    assert code == 2 and "is not a directory" in err


def test_a_missing_collection_or_namespace_is_named(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["stats", "--path", str(store), "--collection", "agent-7"], capsys)
    assert code == 2
    _assert_one_line(err, "has no cogmem collection 'agent-7' (it has 'cogmem')")
    code, _, err = _run(["stats", "--path", str(store), "--namespace", "user-9"], capsys)
    assert code == 2
    _assert_one_line(err, "no namespace 'user-9' in")
    assert "'default', 'user-2'" in err
    with CognitiveMemory(path=store, embedder=HashingEmbedder()) as memory:
        assert memory.namespaces() == ["default", "user-2"]


def test_an_unreachable_server_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()  # nothing listens there
    code, out, err = _run(["stats", "--host", "127.0.0.1", "--port", str(port)], capsys)
    assert code == 2 and out == ""
    _assert_one_line(err, f"127.0.0.1:{port}")
    assert "cannot reach the Chroma server" in err


def test_usage_errors_exit_2(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["stats"], capsys)
    assert code == 2
    _assert_one_line(err, "give the store: --path DIR or --host HOST")
    for argv in (
        ["stats", "--path", str(store), "--now", "next tuesday"],  # not ISO 8601
        ["search", "x", "--path", str(store), "--top-k", "0"],
        ["search", "x", "--path", str(store), "--mode", "fuzzy"],
    ):
        with pytest.raises(SystemExit) as info:
            main(argv, embedder=HashingEmbedder())
        assert info.value.code == 2
    err = capsys.readouterr().err
    assert "is not an ISO 8601 date or time" in err and "must be >= 1" in err
    assert "invalid choice" in err
    code, _, err = _run(["stats", "--path", str(store), "--host", "h"], capsys)
    assert code == 2
    _assert_one_line(err, "give either --path or --host, not both")


@pytest.mark.parametrize(
    ("now", "same_as"),
    [
        ("2026-07-01", "2026-07-01T00:00:00+00:00"),
        ("2026-07-01T12:00", "2026-07-01T12:00:00+00:00"),
        ("2026-07-01T12:00:00Z", "2026-07-01T12:00:00+00:00"),
        ("2026-07-01T14:00+02:00", "2026-07-01T12:00:00+00:00"),
    ],
)
def test_now_takes_a_date_or_a_time_with_or_without_an_offset(
    store: Path, now: str, same_as: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: '2026-04-25' was refused with the suggestion '2026-04-25+00:00', itself refused
    with the suggestion '2026-04-25+00:00+00:00'. Without an offset, UTC."""
    code, out, err = _run(["show", "crdb", "--path", str(store), "--now", now], capsys)
    assert code == 0 and err == ""
    _, expected, _ = _run(["show", "crdb", "--path", str(store), "--now", same_as], capsys)
    assert out == expected


def test_an_unreadable_import_file_exits_2(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.jsonl"
    code, _, err = _run(["import", str(missing), "--path", str(store)], capsys)
    assert code == 2
    _assert_one_line(err, f"{missing}: No such file or directory")


def test_a_malformed_import_line_exits_1_and_stores_nothing(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "t", "created_at": "2026-01-01T00:00:00Z"}\n{oops\n')
    before = _snapshot(store)
    code, _, err = _run(["import", str(bad), "--path", str(store)], capsys)
    assert code == 1
    _assert_one_line(err, "bad.jsonl line 2: not JSON")
    assert _snapshot(store) == before
    new = tmp_path / "new-store"
    code, _, err = _run(["import", str(bad), "--path", str(new)], capsys)
    assert code == 1 and "line 2: not JSON" in err
    assert not new.exists()  # the file is read before any store is created


def test_demo_is_still_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path] = []
    monkeypatch.setattr("cogmem.demo.run_demo", lambda **kw: calls.append(kw["folder"]))
    assert main(["demo"]) == 0 and calls == [Path("cogmem-demo")]
    assert main(["demo", "--path", "elsewhere"]) == 0 and calls[-1] == Path("elsewhere")
    assert cli_module.build_parser().parse_args(["demo"]).command == "demo"


def test_the_demo_keeps_its_store_and_never_touches_a_folder_it_did_not_make(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    embedder = HashingEmbedder()
    folder = tmp_path / "demo"
    assert main(["demo", "--path", str(folder)], embedder=embedder) == 0
    out = capsys.readouterr().out
    assert f"The store stays in {folder}" in out
    code, out, _ = _run(["stats", "--path", str(folder)], capsys)
    assert code == 0 and "13 memories" in out
    # Run again: its own earlier store is emptied and filled again, not added to.
    assert main(["demo", "--path", str(folder)], embedder=embedder) == 0
    assert "an earlier demo's store was there: emptied first" in capsys.readouterr().out
    code, out, _ = _run(["stats", "--path", str(folder)], capsys)
    assert "13 memories" in out
    # Anything else is refused (exit 2) and left exactly as it was.
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me", encoding="utf-8")
    code, _, err = _run(["demo", "--path", str(foreign)], capsys)
    assert code == 2 and "was not made by the demo" in err
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    assert (foreign / "notes.txt").read_text(encoding="utf-8") == "keep me"
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    code, _, err = _run(["demo", "--path", str(a_file)], capsys)
    assert code == 2 and "is a file" in err and a_file.read_text(encoding="utf-8") == "x"


def test_python_dash_m_cogmem_in_a_real_process(store: Path, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "core"), str(ROOT)]))
    ok = subprocess.run(
        [sys.executable, "-m", "cogmem", "stats", "--path", str(store), "--now", WHEN],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert "namespace 'default': 4 memories" in ok.stdout
    missing = tmp_path / "missing"
    bad = subprocess.run(
        [sys.executable, "-m", "cogmem", "stats", "--path", str(missing)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == f"cogmem: {missing}: no such directory\n"
    assert not missing.exists()


@pytest.mark.server
def test_stats_and_search_on_a_chroma_server(
    chroma_server: object, capsys: pytest.CaptureFixture[str]
) -> None:
    host, port = chroma_server.host, chroma_server.port  # type: ignore[attr-defined]
    collection = f"cli-{uuid.uuid4().hex[:8]}"
    with CognitiveMemory(
        client=http_client(host, port), collection=collection, embedder=HashingEmbedder()
    ) as memory:
        _fill(memory)
    base = ["--host", host, "--port", str(port), "--collection", collection]
    code, out, err = _run(["stats", *base, "--now", WHEN], capsys)
    assert code == 0, err
    assert f"store {host}:{port}, collection '{collection}'" in out
    assert "namespace 'default': 4 memories" in out and "namespace 'user-2': 1" in out
    code, out, _ = _run(["search", "CockroachDB", *base, "--top-k", "1"], capsys)
    assert code == 0 and "CockroachDB" in out
    code, _, err = _run(["stats", *base[:-1], "nothing-here"], capsys)
    assert code == 2 and "has no cogmem collection 'nothing-here'" in err


def test_a_closed_pipe_stops_the_export_quietly(store: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "core"), str(ROOT)]))
    process = subprocess.Popen(
        [sys.executable, "-m", "cogmem", "export", "-", "--path", str(store), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # like `| head -0`: the reader is gone before the first write
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert err == ""


def test_a_collection_cogmem_did_not_create_is_refused(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(
        path=str(store), settings=Settings(anonymized_telemetry=False, allow_reset=False)
    )
    client.create_collection("foreign", embedding_function=None)
    code, _, err = _run(["stats", "--path", str(store), "--collection", "foreign"], capsys)
    assert code == 2
    _assert_one_line(err, "collection 'foreign' of")
    assert "was not created by cogmem" in err


def test_explanation_rows_flatten_every_part_of_the_explanations(
    store: Path,
) -> None:
    with CognitiveMemory(path=store, embedder=HashingEmbedder()) as memory:
        results = memory.search(
            "billing service", now=NOW, reinforce=False, deep_recall=True, top_k=3
        )
    rows = explanation_rows(results)
    assert [row["rank"] for row in rows] == [1, 2, 3]
    assert [row["id"] for row in rows] == [r.id for r in results]
    penalties = sorted({n for r in results for n in r.explanation.penalties})
    assert "deep_recall" in penalties
    for row, r in zip(rows, results):
        e = r.explanation
        assert (row["score"], row["relevance"], row["retention"]) == (
            r.score,
            e.relevance,
            e.retention,
        )
        assert row["decay_factor"] == e.decay_factor and row["alpha"] == e.alpha
        for name in penalties:
            assert row[f"penalty:{name}"] == e.penalties.get(name, 1.0)
        assert row["cosine"] == e.cosine and row["bm25"] == e.bm25
    assert len({tuple(row) for row in rows}) == 1  # the same columns in every row
    with pytest.raises(TypeError):
        explanation_rows(results[0])  # type: ignore[arg-type]


def test_consolidate_dry_run_shows_groups_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "faded"
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as memory:
        memory.add_many(
            [
                MemoryInput("Sam and I lifted weights at the gym on Monday", id="g1"),
                MemoryInput("Sam and I lifted weights at the gym on Tuesday", id="g2"),
                MemoryInput("Paid the electricity bill", id="bill"),
            ],
            now=NOW,
        )
    later = (NOW + timedelta(days=300)).isoformat()
    before = _snapshot(folder)
    code, out, _ = _run(["consolidate", "--path", str(folder), "--now", later, "--dry-run"], capsys)
    assert code == 0 and _snapshot(folder) == before
    assert out.splitlines()[0] == "3 faded memories; would merge 2 into 1 summary"
    assert "from g1, g2" in out
    code, out, _ = _run(["consolidate", "--path", str(folder), "--now", later], capsys)
    assert code == 0 and out.startswith("3 faded memories; merged 2 into 1 summary")
    with CognitiveMemory(path=folder, embedder=HashingEmbedder()) as memory:
        assert memory.get("g1").status == "superseded"
