"""Opening and closing a store: what :class:`~cogmem.memory.CognitiveMemory` holds (the
Chroma client, the folder lock, the namespaces) and how it lets go of it, the way httpx's
``BaseClient`` holds what its ``Client`` sends through. The memory API is in
:mod:`cogmem.memory`."""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from typing_extensions import Self

from .checks import check_bool, check_callable, check_name
from .clients import DEFAULT_NAMESPACE, make_client
from .config import CognitiveMemoryConfig
from .dedup import Judge
from .embedding import Embedder, MiniLMEmbedder, embed_texts
from .errors import InvalidInputError, InvalidTypeError
from .lock import FolderLock, lock_folder
from .namespaces import Namespaces
from .packing import TokenCounter, char_token_count, tiktoken_counter
from .phrases import Phrases
from .reader import shared_reader
from .recovery import refuse_lost_chroma
from .stages import Stages
from .versions import Versions

__all__ = ["CallLock", "MemoryHandle"]

log = logging.getLogger("cogmem")


def _versions(embedder: Embedder) -> Versions:
    """The version logic over ``embedder`` (holding the embedder, never the handle: a handle
    dropped without close must be freed at once, and its folder lock with it)."""
    return Versions(shared_reader(), Phrases(lambda texts: embed_texts(embedder, texts)))


class CallLock:
    """The memory's re-entrant lock, which runs ``after`` (still holding it) when its
    outermost holder lets go: between two calls, never inside one. The memory closes the
    namespaces it no longer needs there (:meth:`cogmem.namespaces.Namespaces.trim`).

    Use it as ``threading.RLock``: ``with lock: ...``.
    """

    def __init__(self, after: Callable[[], None]) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        # ``after`` is a method of the memory, held weakly: the lock must not keep its memory
        # alive (a memory dropped without close() is freed at once, and its folder lock too).
        self._after = weakref.WeakMethod(after)

    def __enter__(self) -> Self:
        self._lock.acquire()
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            after = self._after()
            if self._depth == 1 and after is not None:
                after()
        finally:
            self._depth -= 1
            self._lock.release()


class _Held:
    """What an open handle holds that must be let go of, kept apart from the handle so that
    a finaliser can release it when the handle is dropped without ``close()``.

    Attributes:
        folder_lock: A folder store's lock (``None``: no folder, or released).
        client: The Chroma client cogmem made (``None``: the caller's, or released).
        spaces: The namespaces, once opened (their journals and vector files).
    """

    def __init__(self, folder_lock: FolderLock | None) -> None:
        self.folder_lock = folder_lock
        self.client: Any = None
        self.spaces: Namespaces | None = None

    def let_go(self) -> None:
        """Release everything, journals first (left for the next open to write when the
        handle was dropped unclosed), then the client, then the folder lock; idempotent."""
        spaces, self.spaces = self.spaces, None
        if spaces is not None and not spaces.closed:
            held = spaces.unwritten()
            if held:
                log.warning(
                    "a memory was dropped without close(): its %d unwritten adds stay in their "
                    "journal, and the next open writes them",
                    held,
                )
            spaces.close(flushed=False)
        client, self.client = self.client, None
        if client is not None and hasattr(client, "close"):
            # Released, so that a later open reads the store afresh.
            try:
                client.close()
            except Exception as exc:
                log.debug("closing the Chroma client failed: %s", exc)
        lock, self.folder_lock = self.folder_lock, None
        if lock is not None:
            lock.release()


class MemoryHandle:
    """An open store: its client, folder lock, configuration, embedder and namespaces.

    See :class:`~cogmem.memory.CognitiveMemory` for the arguments and what they mean.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        client: Any = None,
        collection: str | None = None,
        embedder: Embedder | None = None,
        config: CognitiveMemoryConfig | None = None,
        index_dir: str | Path | None = None,
        dedup_judge: Judge | None = None,
        version_judge: Judge | None = None,
        read_only: bool = False,
        stages: Stages | None = None,
    ) -> None:
        if path is not None and client is not None:
            raise InvalidInputError("pass either path= or client=, not both")
        if check_bool(read_only, "read_only") and path is None:
            raise InvalidInputError("read_only=True opens a folder store: pass path=")
        if config is not None and not isinstance(config, CognitiveMemoryConfig):
            raise InvalidTypeError(
                f"config must be a CognitiveMemoryConfig, got {type(config).__name__}"
            )
        check_callable(dedup_judge, "dedup_judge", "(str, str) -> bool")
        check_callable(version_judge, "version_judge", "(str, str) -> bool")
        self.config = config or CognitiveMemoryConfig()
        self.dedup_judge = dedup_judge
        self.version_judge = version_judge
        if stages is not None and not isinstance(stages, Stages):
            raise InvalidTypeError(f"stages must be a cogmem.Stages, got {type(stages).__name__}")
        self.stages = stages if stages is not None else Stages()
        self.embedder: Embedder = embedder if embedder is not None else MiniLMEmbedder()
        #: What statements are about (design §6): the slot reading behind dedup and the
        #: read-time order of versions; ``None`` when ``config.version_evidence`` is not
        #: ``"slots"``.
        self.versions: Versions | None = (
            _versions(self.embedder) if self.config.version_evidence == "slots" else None
        )
        self._count_tokens: TokenCounter = (
            tiktoken_counter() if self.config.token_counter == "tiktoken" else char_token_count
        )
        self._lock = CallLock(self._between_calls)
        self._closed = True  # until the store is open
        held = _Held(None if path is None else lock_folder(Path(path), read_only))
        try:
            if path is not None:
                refuse_lost_chroma(Path(path), Path(index_dir if index_dir is not None else path))
            self._client = (
                client
                if client is not None
                else make_client(path, loaded_indexes=self.config.loaded_indexes)
            )
            if client is None:
                held.client = self._client  # cogmem made it: released with the handle
            self._spaces = Namespaces(
                self._client,
                self.config,
                path=None if path is None else Path(path),
                collection=collection,
                index_dir=None if index_dir is None else Path(index_dir),
                read_only=read_only,
                served=client is not None,
            )
            stated = getattr(self.embedder, "dimension", None)
            # A read-only store checks at search only: reads and exports need no embedder.
            if isinstance(stated, int) and not isinstance(stated, bool) and not read_only:
                what = f"the embedder ({self.embedder!r})"
                self._spaces.require(DEFAULT_NAMESPACE).check_width(stated, what)
        except BaseException:
            held.let_go()
            raise
        held.spaces = self._spaces
        self._context = self._spaces.context
        # A handle dropped without close() (``del``, a notebook cell run again) lets go of
        # its journals before its folder lock, so the next opener replays what it held.
        self._finalizer = weakref.finalize(self, held.let_go)
        self._closed = False

    def _between_calls(self) -> None:
        spaces = getattr(self, "_spaces", None)  # None while the store is being opened
        if spaces is not None:
            spaces.trim()

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Write what is held, save the derived indexes (if the store has a folder) and release
        the folder. Idempotent.

        If writing fails (a full disk, a server gone), the folder is released all the same and
        the error raised: held adds stay in their journal for the next open to write, and at
        most the recalls not yet written are lost. An in-process store whose collection name
        cogmem chose is dropped: nothing else can reach it.
        """
        with self._lock:
            if self._closed:
                return
            failed: BaseException | None = None
            try:
                self.flush()
            except BaseException as exc:
                failed = exc
            self._spaces.close(flushed=failed is None)
            self._closed = True
            self._finalizer()  # the client and the folder lock
            if failed is not None:
                raise failed

    def flush(self) -> None:
        """Write held adds and recalls not yet written to Chroma, and save the derived indexes.

        Small adds are written in groups (``config.add_flush_size``; journaled on a folder
        store, so a process that dies loses none). Reinforcement is written behind
        (``config.reinforcement_flush_size`` memories at a time): a process that dies loses at
        most that many recalls, never a memory.
        """
        with self._lock:
            self._spaces.flush()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # A memory is a handle to one open store (a locked folder, a server collection), like a
    # database connection: copying it gives the same handle (so frameworks that deep-copy
    # their components, e.g. a LangChain retriever's ``model_copy(deep=True)``, share the
    # store instead of failing), and pickling it is refused with a reason.
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self

    def __reduce__(self) -> NoReturn:
        raise InvalidTypeError(
            "a CognitiveMemory is a handle to an open store and cannot be pickled; give each "
            "process its own (CognitiveMemory(client=...) to share one store), or move its "
            "memories with cogmem.transfer.export_jsonl / import_jsonl"
        )

    def __len__(self) -> int:
        return sum(self.count(ns) for ns in self.namespaces())

    def count(self, namespace: str | None = None) -> int:
        """Memories stored (every status), in one namespace or in all."""
        if namespace is None:
            return len(self)
        with self._lock:
            table = self._spaces.table(check_name(namespace, "namespace"))
            return 0 if table is None else len(table)

    def namespaces(self, prefix: str = "") -> list[str]:
        """The namespaces that hold (or held) memories, sorted; only those whose names start
        with ``prefix`` when one is given."""
        if not isinstance(prefix, str):
            raise InvalidTypeError(f"prefix must be a str, got {type(prefix).__name__}")
        return self._spaces.names(prefix)
