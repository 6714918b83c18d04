"""Tests of the benchmark plumbing (benchmarks/common.py) and the peer retrievers
(benchmarks/peers.py). Fast, offline, no embedding model: the peers get hand-made vectors."""

from __future__ import annotations

import math
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from benchmarks import common
from benchmarks.common import (
    Conversation,
    EmbeddingCache,
    Timer,
    Turn,
    hit_at_k,
    load_locomo,
    load_scifact,
    load_updates,
    ndcg_at_k,
    parse_session_date,
    percentiles,
    recall_at_k,
    rss_peak_mb,
    summarize_locomo,
    update_success,
)
from tests.conftest import needs_data

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------ loaders


@pytest.fixture(scope="module")
def locomo() -> list[Conversation]:
    return load_locomo()


@needs_data("locomo/dev.jsonl")
def test_locomo_counts(locomo: list[Conversation]) -> None:
    assert [c.sample_id for c in locomo] == ["conv-26", "conv-30", "conv-41", "conv-42"]
    assert sum(len(c.turns) for c in locomo) == 2080
    # The README: 757 QA, 582 left once category 5 and evidence-less questions are dropped.
    assert sum(len(c.questions) for c in locomo) == 582
    assert all(q.category in (1, 2, 3, 4) and q.evidence for c in locomo for q in c.questions)
    for c in locomo:
        ids = {t.id for t in c.turns}
        assert len(ids) == len(c.turns)
        assert all(e in ids for q in c.questions for e in q.evidence)


@needs_data("locomo/dev.jsonl")
def test_locomo_turns_and_now(locomo: list[Conversation]) -> None:
    first = locomo[0].turns[0]
    assert first == Turn(
        id="D1:1",
        text="Caroline: Hey Mel! Good to see you! How have you been?",
        created_at=datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc),
    )
    conv = locomo[0]
    last = max(t.created_at for t in conv.turns)
    # conv-26's last session: "9:55 am on 22 October, 2023".
    assert last == datetime(2023, 10, 22, 9, 55, tzinfo=timezone.utc)
    assert conv.now == last + timedelta(days=1)
    for c in locomo:
        assert c.now.tzinfo is not None
        assert c.now == max(t.created_at for t in c.turns) + timedelta(days=1)


def test_parse_session_date() -> None:
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(
        2023, 5, 8, 13, 56, tzinfo=timezone.utc
    )
    assert parse_session_date("12:09 am on 13 September, 2023") == datetime(
        2023, 9, 13, 0, 9, tzinfo=timezone.utc
    )
    assert parse_session_date("12:30 pm on 1 January, 2024").hour == 12
    with pytest.raises(ValueError):
        parse_session_date("2023-05-08")


def test_load_updates() -> None:
    cases = load_updates()
    assert len(cases) == 200
    ids = {m.id for c in cases for m in c.memories}
    assert len(ids) == sum(len(c.memories) for c in cases)
    for c in cases:
        mem_ids = {m.id for m in c.memories}
        assert c.current in mem_ids and c.stale and set(c.stale) <= mem_ids
        assert c.current not in c.stale
        assert all(m.days_ago >= 0 for m in c.memories)
    first = cases[0]
    assert first.id == "u1-0" and first.current == "u1-0-1" and first.stale == ("u1-0-0",)


@needs_data("scifact")
def test_load_scifact() -> None:
    corpus, queries, qrels = load_scifact()
    assert len(corpus) == 5183
    assert set(queries) == set(qrels)
    assert 0 < len(queries) < 1109
    assert qrels["0"] == {"31715818": 1}
    assert all(d in corpus for q in qrels.values() for d in q)
    assert queries["0"] == "0-dimensional biomaterials lack inductive properties."


def test_data_dir_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COGMEM_DATA", str(tmp_path))
    assert common.data_dir() == tmp_path
    monkeypatch.delenv("COGMEM_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert common.data_dir() == tmp_path / "cache" / "cogmem" / "data"  # never ../shared


# ------------------------------------------------------------------------------------ metrics


def test_recall_and_hit() -> None:
    ranked = ["a", "b", "c", "d", "e"]
    assert recall_at_k(ranked, ["a", "e"], 5) == 1.0
    assert recall_at_k(ranked, ["a", "e"], 4) == 0.5
    assert recall_at_k(ranked, ["x"], 5) == 0.0
    assert recall_at_k(ranked, [], 5) == 0.0
    assert recall_at_k(ranked, ("c", "c"), 3) == 1.0  # duplicates count once
    assert hit_at_k(ranked, ["e", "x"], 5) == 1.0
    assert hit_at_k(ranked, ["e", "x"], 4) == 0.0
    assert hit_at_k([], ["a"], 10) == 0.0


def test_ndcg() -> None:
    assert ndcg_at_k(["a", "b"], {"a": 1}) == 1.0
    assert ndcg_at_k(["b", "a"], {"a": 1}) == pytest.approx(1 / math.log2(3))
    assert ndcg_at_k(["x", "y"], {"a": 1}) == 0.0
    assert ndcg_at_k(["a"], {}) == 0.0
    # graded gains: ideal order is (2, 1)
    got = ndcg_at_k(["b", "a"], {"a": 2, "b": 1})
    want = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert got == pytest.approx(want)
    # cut at k: relevant doc at rank 3 is outside k=2
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}, k=2) == 0.0
    # two relevant, one found at rank 1
    assert ndcg_at_k(["a", "x"], {"a": 1, "b": 1}) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_update_success() -> None:
    assert update_success(["new", "old"], "new", ["old"])
    assert not update_success(["old", "new"], "new", ["old"])
    assert update_success(["x", "new"], "new", ["old"])  # stale not in the top 10
    assert not update_success(["x", "old"], "new", ["old"])  # current missing
    top = [f"m{i}" for i in range(10)]
    assert not update_success([*top, "new"], "new", ["old"])  # rank 11 is out
    assert update_success(["a", "new", "b", "old2"], "new", ["old1", "old2"])
    assert not update_success(["old1", "new", "old2"], "new", ["old1", "old2"])


def test_summarize_locomo() -> None:
    rows = [
        {"category": 1, "evidence": ("a", "b"), "ranked": ["a", "x", "y", "z", "w", "b"]},
        {"category": 4, "evidence": ("c",), "ranked": ["x"] * 10 + ["c"]},
        {"category": 4, "evidence": ("d",), "ranked": ["d"]},
    ]
    s = summarize_locomo(rows)
    assert s["overall"] == {
        "recall@5": round((0.5 + 0 + 1) / 3, 3),
        "recall@10": round((1 + 0 + 1) / 3, 3),
        "hit@5": round(2 / 3, 3),
        "hit@10": round(2 / 3, 3),
        "n": 3,
    }
    assert list(s["by_category"]) == ["multi-hop", "single-hop"]
    assert s["by_category"]["multi-hop"]["recall@5"] == 0.5
    assert s["by_category"]["single-hop"] == {
        "recall@5": 0.5,
        "recall@10": 0.5,
        "hit@5": 0.5,
        "hit@10": 0.5,
        "n": 2,
    }
    # precomputed rows work too
    pre = summarize_locomo(
        [{"category": 2, "recall@5": 1, "recall@10": 1, "hit@5": 1, "hit@10": 1}]
    )
    assert pre["by_category"]["temporal"]["n"] == 1


@needs_data("locomo/dev.jsonl")
def test_bm25_reference_reproduces_readme(locomo: list[Conversation]) -> None:
    """The data README's BM25Okapi figures pin down the loader and the metrics together."""
    import re

    rank_bm25 = pytest.importorskip("rank_bm25")
    tok = re.compile(r"\w+")
    rows = []
    for conv in locomo:
        bm25 = rank_bm25.BM25Okapi([tok.findall(t.text.lower()) for t in conv.turns])
        for q in conv.questions:
            scores = bm25.get_scores(tok.findall(q.text.lower()))
            order = np.argsort(-scores, kind="stable")[:10]
            ranked = [conv.turns[i].id for i in order]
            rows.append({"category": q.category, "evidence": q.evidence, "ranked": ranked})
    overall = summarize_locomo(rows)["overall"]
    assert overall == {
        "recall@5": 0.430,
        "recall@10": 0.518,
        "hit@5": 0.474,
        "hit@10": 0.576,
        "n": 582,
    }


# ------------------------------------------------------------------------------------ cache


class CountingEmbedder:
    def __init__(self, dim: int = 4) -> None:
        self.dim = dim
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        for i, t in enumerate(texts):
            out[i, 0] = len(t)
            out[i, 1] = sum(map(ord, t)) % 97
            out[i, 2] = i  # position-dependent: catches row mix-ups
        return out


def test_embedding_cache(tmp_path: Path) -> None:
    fake = CountingEmbedder()
    cache = EmbeddingCache(fake, "fake-model", cache_dir=tmp_path)
    v1 = cache.embed(["alpha", "beta", "alpha"])
    assert v1.dtype == np.float32 and v1.shape == (3, 4)
    assert fake.calls == [["alpha", "beta"]]  # deduplicated
    assert np.array_equal(v1[0], v1[2])

    v2 = cache.embed(["beta", "gamma"])
    assert fake.calls[-1] == ["gamma"]  # only the new text
    assert np.array_equal(v2[0], v1[1])

    cache.embed(["gamma", "alpha", "beta"])
    assert len(fake.calls) == 2  # everything cached: no call

    # a fresh cache object reads the files back: still no call
    fake2 = CountingEmbedder()
    again = EmbeddingCache(fake2, "fake-model", cache_dir=tmp_path)
    v3 = again.embed(["alpha", "beta", "gamma"])
    assert fake2.calls == []
    assert np.array_equal(v3[:2], v1[:2]) and np.array_equal(v3[2], v2[1])
    assert len(again) == 3

    # another model id does not share vectors
    fake3 = CountingEmbedder()
    EmbeddingCache(fake3, "other-model", cache_dir=tmp_path).embed(["alpha"])
    assert fake3.calls == [["alpha"]]
    assert len(list(tmp_path.glob("*.npy"))) == 2 and len(list(tmp_path.glob("*.json"))) == 2
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temp files

    assert cache.embed([]).shape == (0, 4)


def test_embedding_cache_rejects_bad_shapes(tmp_path: Path) -> None:
    cache = EmbeddingCache(lambda texts: np.zeros((1, 3)), "bad", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="shape"):
        cache.embed(["a", "b"])


# ------------------------------------------------------------------------------------ misc


def test_timer_percentiles_rss() -> None:
    with Timer() as t:
        sum(range(1000))
    assert t.seconds >= 0 and t.end is not None and t.ms == t.seconds * 1000
    p = percentiles(range(1, 101), [50, 95])
    assert p == {"p50": pytest.approx(50.5), "p95": pytest.approx(95.05)}
    assert math.isnan(percentiles([], [50])["p50"])
    assert rss_peak_mb() > 1


# ------------------------------------------------------------------------------------ peers


def test_import_peers_is_lazy() -> None:
    code = (
        "import sys; import benchmarks.peers, benchmarks.common;"
        "heavy = [m for m in ('langchain_core', 'langchain_chroma', 'llama_index.core',"
        " 'chromadb', 'rank_bm25', 'bm25s') if m in sys.modules];"
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


TOY_IDS = ["m-cat", "m-dog", "m-physics"]
TOY_TEXTS = [
    "Ana: the cat sat on the mat",
    "Ben: dogs chase cars down the street",
    "Cy: quantum physics lecture notes",
]
TOY_VECS = np.array(
    [[1.0, 0.1, 0.0, 0.0], [0.1, 1.0, 0.1, 0.0], [0.0, 0.1, 1.0, 0.1]], dtype=np.float32
)
TOY_QUERIES = [
    ("where did the cat sit?", np.array([0.9, 0.2, 0.0, 0.0], dtype=np.float32), "m-cat"),
    ("who chases cars?", np.array([0.1, 0.9, 0.0, 0.1], dtype=np.float32), "m-dog"),
    ("physics notes", np.array([0.0, 0.0, 1.0, 0.2], dtype=np.float32), "m-physics"),
]
NOW = datetime(2024, 3, 1, 12, 0, tzinfo=timezone.utc)
# All three "yesterday": recency cannot decide, relevance must.
TOY_CREATED = [NOW - timedelta(days=1)] * 3


@pytest.mark.parametrize(
    "peer_name",
    [
        "langchain-ensemble",
        "langchain-ensemble-lower",
        "langchain-ensemble-words",
        "llamaindex-fusion",
        "langchain-time-weighted",
        "langchain-time-weighted-noreinforce",
        "chroma-dense",
    ],
)
def test_peer_smoke(peer_name: str) -> None:
    from benchmarks.peers import PEERS, Peer

    peer = PEERS[peer_name]()
    try:
        assert isinstance(peer, Peer)
        assert peer.search("anything", TOY_VECS[0], 3) == []  # empty store
        peer.add(list(TOY_IDS), list(TOY_TEXTS), TOY_VECS, list(TOY_CREATED))
        for query, qvec, want in TOY_QUERIES:
            got = peer.search(query, qvec, 10, now=NOW)
            assert got[0] == want, (peer_name, query, got)
            assert set(got) <= set(TOY_IDS) and len(got) == len(set(got))
        top1 = peer.search(TOY_QUERIES[2][0], TOY_QUERIES[2][1], 1, now=NOW)
        assert top1 == ["m-physics"]
    finally:
        peer.close()


def test_peer_incremental_add() -> None:
    """Adding in two batches works and the second batch is searchable (BM25 rebuilt)."""
    from benchmarks.peers import LangChainEnsemble, LlamaIndexFusion

    for peer in (LangChainEnsemble(), LlamaIndexFusion()):
        try:
            peer.add(TOY_IDS[:2], TOY_TEXTS[:2], TOY_VECS[:2])
            peer.add(TOY_IDS[2:], TOY_TEXTS[2:], TOY_VECS[2:])
            q, v, want = TOY_QUERIES[2]
            assert peer.search(q, v, 3)[0] == want
        finally:
            peer.close()


def test_time_weighted_scores_at_now() -> None:
    """Same relevance, different ages: the recent memory wins at ``now``."""
    from benchmarks.peers import LangChainTimeWeighted

    peer = LangChainTimeWeighted(reinforce=False)
    try:
        vec = np.array([1.0, 0.0, 0.0], dtype=np.float32)
        peer.add(
            ["old", "new"],
            ["Dana's database is PostgreSQL.", "Dana's database is now Redis."],
            np.stack([vec, vec]),
            [NOW - timedelta(days=200), NOW - timedelta(hours=2)],
        )
        assert peer.search("Dana's database?", vec, 2, now=NOW) == ["new", "old"]
        # reinforce=False: searching leaves last_accessed_at at created_at
        stream = peer._retriever.memory_stream
        assert [d.metadata["last_accessed_at"] for d in stream] == [
            d.metadata["created_at"] for d in stream
        ]
    finally:
        peer.close()


def test_time_weighted_reinforces_by_default() -> None:
    from benchmarks.peers import LangChainTimeWeighted

    peer = LangChainTimeWeighted()
    try:
        vecs = np.eye(2, dtype=np.float32)
        peer.add(
            ["a", "b"],
            ["alpha text", "beta text"],
            vecs,
            [NOW - timedelta(days=30), NOW - timedelta(days=30)],
        )
        peer.search("alpha?", vecs[0], 1, now=NOW)
        stream = {d.metadata["id"]: d for d in peer._retriever.memory_stream}
        # the retrieved document was "accessed" at now (as a naive local datetime)
        accessed = stream["a"].metadata["last_accessed_at"]
        assert isinstance(accessed, datetime)
        assert accessed.timestamp() == pytest.approx(NOW.timestamp())
        assert stream["b"].metadata["last_accessed_at"] == stream["b"].metadata["created_at"]
    finally:
        peer.close()


def test_precomputed_embeddings_refuse_to_embed() -> None:
    from benchmarks.peers import (
        PrecomputedEmbeddingMissError,
        VectorTable,
        langchain_embeddings,
        llamaindex_embedding,
    )

    table = VectorTable()
    table.put(["known"], np.array([[1.0, 2.0]], dtype=np.float32))
    lc = langchain_embeddings(table)
    li = llamaindex_embedding(table)
    assert lc.embed_query("known") == [1.0, 2.0]
    assert lc.embed_documents(["known"]) == [[1.0, 2.0]]
    assert li.get_text_embedding("known") == [1.0, 2.0]
    assert li.get_query_embedding("known") == [1.0, 2.0]
    for call in (
        lambda: lc.embed_query("unknown"),
        lambda: lc.embed_documents(["known", "unknown"]),
        lambda: li.get_query_embedding("unknown"),
        lambda: li.get_text_embedding_batch(["unknown"]),
    ):
        with pytest.raises(PrecomputedEmbeddingMissError, match="no precomputed vector"):
            call()
    with pytest.raises(ValueError):
        table.put(["x"], np.zeros((1, 3), dtype=np.float32))  # wrong dimension


def test_pairs_scores_each_group_by_its_action_and_names_the_lost_writes() -> None:
    import json

    from benchmarks.pairs import DEFAULT_SET, score

    rows = [
        {"id": "a", "group": "lookalike", "kind": "room", "first": "x", "second": "y"},
        {"id": "b", "group": "lookalike", "kind": "room", "first": "x", "second": "y"},
        {"id": "c", "group": "restatement", "kind": "units", "first": "x", "second": "y"},
        {"id": "d", "group": "update", "kind": "moved", "first": "x", "second": "y"},
    ]
    out = score(rows, ["merged", "new_version", "merged", "stored"])
    assert out["lookalike"]["lost"] == {"share": 0.5, "by_kind": {"room": 0.5}, "ids": ["a"]}
    assert out["lookalike"]["linked"]["share"] == 0.5
    assert out["restatement"]["merged"]["share"] == 1.0
    assert out["update"]["updated"]["share"] == 0.0
    shipped = [json.loads(line) for line in DEFAULT_SET.read_text().splitlines()]
    assert len(shipped) == 400 and {r["group"] for r in shipped} == set(
        ["lookalike", "restatement", "update"]
    )
