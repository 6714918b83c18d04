"""Opening Chroma: the client of a store, and the collections cogmem keeps in it.

A memory's namespaces are Chroma collections of one client: ``collection`` for the default
namespace, ``<collection>.ns.<digest>`` for the others (:func:`collection_name`), each created
by cogmem (``created_by`` metadata) with cosine distance. Nothing here keeps state.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .chroma_layout import EARLY_SYNC
from .disk import storage_error
from .errors import CogmemConnectionError, StoreError
from .store import chroma_error

__all__ = [
    "DEFAULT_NAMESPACE",
    "base_collections",
    "cogmem_collection",
    "collection_name",
    "digest",
    "drop_collection",
    "ephemeral_client",
    "http_client",
    "index_cache",
    "list_namespaces",
    "make_client",
    "open_collection",
    "space_of",
]

log = logging.getLogger(__name__)

DEFAULT_NAMESPACE = "default"


def digest(namespace: str) -> str:
    return hashlib.sha1(namespace.encode()).hexdigest()[:16]


def collection_name(base: str, namespace: str) -> str:
    """The collection of ``namespace`` in a store whose default collection is ``base``."""
    return base if namespace == DEFAULT_NAMESPACE else f"{base}.ns.{digest(namespace)}"


def base_collections(client: Any) -> list[str]:
    """The default collections of the stores ``client`` holds (namespaces left out), sorted."""
    try:
        held = client.list_collections()
    except Exception as exc:
        raise chroma_error("Chroma list_collections", exc, client) from exc
    names = [c if isinstance(c, str) else c.name for c in held]
    return sorted(n for n in names if ".ns." not in n)


def list_namespaces(client: Any, base: str) -> list[str]:
    """The namespaces of the store whose default collection is ``base``, sorted (the default
    one always)."""
    found = {DEFAULT_NAMESPACE}
    prefix = f"{base}.ns."
    try:
        for col in client.list_collections():
            name = col if isinstance(col, str) else col.name
            if name.startswith(prefix):
                meta = (
                    (client.get_collection(name).metadata or {})
                    if isinstance(col, str)
                    else (col.metadata or {})
                )
                if "cogmem_namespace" in meta:
                    found.add(str(meta["cogmem_namespace"]))
    except Exception as exc:
        raise chroma_error("Chroma list_collections", exc, client) from exc
    return sorted(found)


def drop_collection(client: Any, name: str) -> None:
    """Delete collection ``name`` (an in-process store's, nothing else can reach); one
    already gone is nothing to free."""
    try:
        client.delete_collection(name)
    except Exception as exc:
        log.debug("could not drop %s: %s", name, exc)


def make_client(path: str | Path | None, *, loaded_indexes: int | None = None) -> Any:
    """Chroma's client of a folder (its in-process one for ``None``).

    Args:
        path: The folder (locked by the caller).
        loaded_indexes: At most this many HNSW indexes kept loaded by the folder's Chroma
            (:func:`index_cache`); ``None``: Chroma's own choice.
    """
    import chromadb
    from chromadb.config import Settings

    if path is None:
        return ephemeral_client()
    settings = Settings(anonymized_telemetry=False, allow_reset=False)
    try:  # the folder exists and is locked (lock_folder)
        with index_cache(loaded_indexes):
            return chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception as exc:  # Chroma's InternalError for a read-only folder, ...
        _forget_failed_system(str(path))
        raise storage_error("opening the Chroma store", path, exc, chroma=True) from exc


class _FileLimit:
    """``resource`` as Chroma's embedded API reads it to size its cache of loaded indexes,
    with the file limit it is told (every other call goes to the real module)."""

    def __init__(self, real: Any, files: int) -> None:
        self._real, self._files = real, files

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def getrlimit(self, which: int) -> tuple[int, int]:
        soft, hard = self._real.getrlimit(which)
        return (min(soft, self._files), hard) if which == self._real.RLIMIT_NOFILE else (soft, hard)


@contextlib.contextmanager
def index_cache(indexes: int | None) -> Iterator[None]:
    """Let the embedded Chroma started inside keep at most ``indexes`` HNSW indexes loaded.

    Chroma's embedded API (1.x) sizes its cache of loaded indexes as ``file limit // 5``, as
    if it were alone in the process: 4,000 under ``ulimit -n 20000``, each index about 3 MB
    of RAM and four open files (measured: 300 collections of 20 records, 881 MB and 1,216
    files; with 16, 303 MB and 273). ``chroma_segment_cache_policy`` and
    ``chroma_memory_limit_bytes`` do not reach it (they size the Python segment manager, which
    the Rust API does not use). Chroma reads the limit through its module's name
    ``resource``: that name alone is shown a limit of ``indexes · 5`` while the client starts;
    nothing process-wide changes. A Chroma without that name is left as it is.
    """
    embedded: Any = None
    with contextlib.suppress(ImportError):
        import chromadb.api.rust as embedded
    real = getattr(embedded, "resource", None)
    if indexes is None or real is None or not callable(getattr(real, "getrlimit", None)):
        yield
        return
    setattr(embedded, "resource", _FileLimit(real, indexes * 5))  # noqa: B010
    try:
        yield
    finally:
        setattr(embedded, "resource", real)  # noqa: B010


def _forget_failed_system(path: str) -> None:
    """Drop the system Chroma cached for ``path`` although starting it failed (no client
    holds it): the next open of that folder in this process would be handed the broken one
    (``'RustBindingsAPI' object has no attribute 'bindings'``)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    with SharedSystemClient._refcount_lock:
        if not SharedSystemClient._identifier_to_refcount.get(path, 0):
            SharedSystemClient._identifier_to_system.pop(path, None)


def ephemeral_client() -> Any:
    """Chroma's in-process client, sharing the process's one in-memory Chroma.

    Chroma keeps one in-memory instance per process and refuses a second client whose settings
    differ from the first one's (``An instance of Chroma already exists for ephemeral with
    different settings``). So cogmem asks with Chroma's default settings, which is what
    ``chromadb.EphemeralClient()`` and LlamaIndex's ``ChromaVectorStore`` set-up use, and when
    the instance was started with other settings, joins it with those. Its collections are
    named ``cogmem-<random>`` and dropped on close, so they never meet the caller's.
    """
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient

    try:
        return chromadb.EphemeralClient()
    except ValueError as exc:
        running = getattr(SharedSystemClient, "_identifier_to_system", {}).get("ephemeral")
        if running is None or "different settings" not in str(exc):
            raise chroma_error("starting Chroma in memory", exc) from exc
        return chromadb.EphemeralClient(settings=running.settings)


def http_client(
    host: str = "localhost",
    port: int = 8000,
    *,
    ssl: bool = False,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """A ``chromadb.HttpClient`` for a Chroma server (``chroma run``), to pass as
    ``CognitiveMemory(client=...)``.

    Args:
        host: The server's host name or address.
        port: Its port.
        ssl: Whether to use HTTPS.
        headers: Extra HTTP headers (e.g. for authentication).

    Raises:
        CogmemConnectionError: No server answers at that address (names it).
        StoreError: Chroma refused to create the client for another reason.
    """
    import chromadb
    from chromadb.config import Settings

    address = f"{'https' if ssl else 'http'}://{host}:{port}"
    try:
        return chromadb.HttpClient(
            host=host,
            port=port,
            ssl=ssl,
            headers=dict(headers or {}),
            settings=Settings(anonymized_telemetry=False),
        )
    except Exception as exc:  # Chroma raises ValueError("Could not connect ...") from httpx
        error = chroma_error("connecting to Chroma", exc)
        if isinstance(error, CogmemConnectionError) or "could not connect" in str(exc).lower():
            raise CogmemConnectionError(
                f"cannot reach the Chroma server at {address} ({exc}); is it running?",
                address=address,
            ) from exc
        raise error from exc


def cogmem_collection(
    client: Any,
    name: str,
    *,
    create: bool,
    configuration: Mapping[str, Any],
    metadata: Mapping[str, Any] | None = None,
) -> Any:
    """Collection ``name``, made by cogmem (``created_by`` metadata): created with
    ``configuration`` and ``metadata`` when missing and ``create`` is on, else ``None`` when
    missing.

    Raises:
        CogmemConnectionError: The server could not be reached (never read as "missing").
        StoreError: It exists but cogmem did not make it; Chroma failed.
    """
    try:
        if create:
            collection = client.get_or_create_collection(
                name,
                embedding_function=None,
                configuration=dict(configuration),
                metadata={"created_by": "cogmem", **(metadata or {})},
            )
        else:
            try:
                collection = client.get_collection(name, embedding_function=None)
            except Exception as exc:  # Chroma raises NotFoundError/ValueError by version
                error = chroma_error("Chroma get_collection", exc, client)
                if isinstance(error, CogmemConnectionError):  # unreachable is not "absent"
                    raise error from exc
                return None
    except CogmemConnectionError:
        raise
    except Exception as exc:
        raise chroma_error(f"opening Chroma collection {name!r}", exc, client) from exc
    if (getattr(collection, "metadata", None) or {}).get("created_by") != "cogmem":
        raise StoreError(
            f"collection {name!r} was not created by cogmem (its records are not cogmem's); "
            "use another collection name"
        )
    return collection


def open_collection(client: Any, name: str, namespace: str, *, create: bool) -> Any:
    """The collection of ``namespace`` (cosine, made by cogmem); ``None`` when it does not
    exist and ``create`` is off.

    Raises:
        StoreError: It exists but cogmem did not make it, or it is not cosine; Chroma failed.
    """
    collection = cogmem_collection(
        client,
        name,
        create=create,
        configuration={"hnsw": {"space": "cosine", **EARLY_SYNC}},
        metadata={"cogmem_namespace": namespace},
    )
    if collection is None:
        return None
    space = space_of(collection)
    if space not in (None, "cosine"):
        raise StoreError(
            f"collection {name!r} uses {space!r} distance; cogmem needs cosine. "
            "Use another collection name."
        )
    return collection


def space_of(collection: Any) -> str | None:
    try:
        conf = collection.configuration
        hnsw = conf.get("hnsw") if isinstance(conf, Mapping) else None
        if isinstance(hnsw, Mapping) and hnsw.get("space"):
            return str(hnsw["space"])
    except Exception:  # older Chroma: configuration missing
        pass
    meta = getattr(collection, "metadata", None) or {}
    space = meta.get("hnsw:space")
    return str(space) if space else None
