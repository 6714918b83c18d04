"""LoCoMo retrieval quality of the peer retrievers (LangChain, LlamaIndex, bare Chroma).

For each conversation (each its own store) every turn is added to every peer, then every
question is searched at k=10 (at the conversation's ``now``) and scored against its evidence
turns. Prints one JSON object: the embedder used, ``summarize_locomo`` per peer, timings.

    PYTHONPATH=core:. /tmp/venv/bin/python benchmarks/peers_locomo.py [--peers a,b] [--k 10]

Vectors come from ``cogmem.embedding.MiniLMEmbedder`` (all-MiniLM-L6-v2, offline) through the
on-disk :class:`~benchmarks.common.EmbeddingCache`, or from ``cogmem.testing.HashingEmbedder``
when the real embedder is unavailable (``--embedder hashing`` forces it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
for _p in (str(_ROOT / "core"), str(_ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import numpy as np  # noqa: E402

from benchmarks.common import (  # noqa: E402
    EmbeddingCache,
    Timer,
    load_locomo,
    percentiles,
    rss_peak_mb,
    summarize_locomo,
)
from benchmarks.peers import PEERS  # noqa: E402


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def make_embedder(kind: str) -> tuple[Any, str, str]:
    """(embed_fn, model_id, description) for ``kind`` in {"auto", "minilm", "hashing"}."""
    if kind in ("auto", "minilm"):
        try:
            from cogmem.embedding import MiniLMEmbedder

            emb = MiniLMEmbedder()
            return emb.embed, str(emb.model_id), f"cogmem.embedding.MiniLMEmbedder ({emb.model_id})"
        except Exception as exc:  # the real model is missing or broken
            if kind == "minilm":
                raise
            _log(f"MiniLMEmbedder unavailable ({exc!r}); falling back to HashingEmbedder")
    from cogmem.testing import HashingEmbedder  # type: ignore[import-not-found]

    emb = HashingEmbedder()
    model_id = str(getattr(emb, "model_id", "hashing"))
    return emb.embed, model_id, f"cogmem.testing.HashingEmbedder ({model_id})"


def _bm25_reference(turn_ids: list[str], texts: list[str]) -> Any:
    """The README's reference: BM25Okapi over lowercase \\w+ tokens (sanity check of metrics)."""
    from rank_bm25 import BM25Okapi

    tok = re.compile(r"\w+")
    bm25 = BM25Okapi([tok.findall(t.lower()) for t in texts])

    def search(query: str, k: int) -> list[str]:
        scores = bm25.get_scores(tok.findall(query.lower()))
        order = np.argsort(-scores, kind="stable")[:k]
        return [turn_ids[i] for i in order]

    return search


def run(peer_names: list[str], k: int, embedder: str, use_cache: bool) -> dict[str, Any]:
    conversations = load_locomo()
    embed_fn, model_id, description = make_embedder(embedder)
    if use_cache:
        cache = EmbeddingCache(embed_fn, model_id)
        embed = cache.embed
    else:

        def embed(texts: list[str]) -> np.ndarray:
            return np.asarray(embed_fn(texts), dtype=np.float32)

    with Timer() as t_embed:
        turn_vecs = [embed([t.text for t in c.turns]) for c in conversations]
        question_vecs = [embed([q.text for q in c.questions]) for c in conversations]
    _log(f"embedded in {t_embed.seconds:.1f}s with {description}")

    out: dict[str, Any] = {
        "benchmark": "locomo-peers",
        "k": k,
        "embedder": description,
        "embed_seconds": round(t_embed.seconds, 2),
        "conversations": len(conversations),
        "turns": sum(len(c.turns) for c in conversations),
        "questions": sum(len(c.questions) for c in conversations),
        "peers": {},
    }

    # Reference from the data README (plain BM25Okapi): recall@10 0.518 on these 582 questions.
    ref_rows = []
    for conv in conversations:
        search = _bm25_reference([t.id for t in conv.turns], [t.text for t in conv.turns])
        for q in conv.questions:
            ref_rows.append(
                {"category": q.category, "evidence": q.evidence, "ranked": search(q.text, k)}
            )
    out["reference_bm25okapi"] = summarize_locomo(ref_rows)["overall"]

    for name in peer_names:
        factory = PEERS[name]
        rows: list[dict[str, Any]] = []
        add_s = 0.0
        build_s = 0.0
        latencies_ms: list[float] = []
        with Timer() as t_total:
            for conv, tv, qv in zip(conversations, turn_vecs, question_vecs, strict=True):
                with Timer() as t_build:
                    peer = factory()
                build_s += t_build.seconds
                with Timer() as t_add:
                    peer.add(
                        [t.id for t in conv.turns],
                        [t.text for t in conv.turns],
                        tv,
                        [t.created_at for t in conv.turns],
                    )
                add_s += t_add.seconds
                for q, vec in zip(conv.questions, qv, strict=True):
                    with Timer() as t_q:
                        ranked = peer.search(q.text, vec, k, now=conv.now)
                    latencies_ms.append(t_q.ms)
                    rows.append({"category": q.category, "evidence": q.evidence, "ranked": ranked})
                close = getattr(peer, "close", None)
                if close is not None:
                    close()
        summary = summarize_locomo(rows)
        lat = percentiles(latencies_ms, [50, 95])
        summary["timing"] = {
            "total_s": round(t_total.seconds, 2),
            "construct_s": round(build_s, 2),
            "add_s": round(add_s, 2),
            "search_s": round(sum(latencies_ms) / 1000.0, 2),
            "search_p50_ms": round(lat["p50"], 2),
            "search_p95_ms": round(lat["p95"], 2),
        }
        out["peers"][name] = summary
        o = summary["overall"]
        _log(
            f"{name}: recall@10 {o['recall@10']} hit@10 {o['hit@10']} "
            f"({summary['timing']['total_s']}s)"
        )
    out["rss_peak_mb"] = round(rss_peak_mb(), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--peers", default=",".join(PEERS), help="comma-separated, from: " + ", ".join(PEERS)
    )
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--embedder", choices=("auto", "minilm", "hashing"), default="auto")
    ap.add_argument("--no-cache", action="store_true", help="don't use benchmarks/.cache")
    ap.add_argument("--out", help="also write the JSON to this file")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.peers.split(",") if n.strip()]
    unknown = [n for n in names if n not in PEERS]
    if unknown:
        ap.error(f"unknown peers: {unknown}")
    result = run(names, args.k, args.embedder, not args.no_cache)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
