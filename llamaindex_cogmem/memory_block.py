"""``CognitiveMemoryBlock``: cogmem as a long-term memory block of LlamaIndex's ``Memory``.

``llama_index.core.memory.Memory`` keeps a short-term FIFO of chat messages; when it grows past
``token_limit · chat_history_token_ratio`` tokens, the oldest messages are flushed into its
memory blocks (``aput``), and every time the memory is read each block contributes content
(``aget``), inserted into the system message. This block stores what is flushed as episodic
memories and contributes the memories relevant to the latest messages, as text within its own
token budget.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Literal

from llama_index.core.base.llms.types import ChatMessage, TextBlock
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory.memory import BaseMemoryBlock
from llama_index.core.utils import get_tokenizer
from pydantic import InstanceOf

from cogmem import (
    CogmemError,
    CognitiveMemory,
    InvalidInputError,
    InvalidTypeError,
    MemoryInput,
    SearchResult,
    render,
)
from cogmem.checks import check_texts
from cogmem.recall import search_settings

from ._convert import check_now, current_time
from .filters import to_cogmem_filters

__all__ = ["CognitiveMemoryBlock"]

logger = logging.getLogger(__name__)

ROLE_KEY = "role"
SESSION_KEY = "session_id"
# Roles whose messages instruct the model rather than converse: never part of a query.
_INSTRUCTIONS = frozenset({"system", "developer"})


def _message_text(message: ChatMessage) -> str:
    """The text blocks of a message, one per line (images, tool calls, ... are left out)."""
    parts = [b.text for b in message.blocks if isinstance(b, TextBlock)]
    return "\n".join(p for p in parts if p).strip()


def message_line(message: ChatMessage) -> str:
    """A message as ``role: text`` (its text blocks), or ``""`` when it has no text."""
    text = _message_text(message)
    return f"{_role(message)}: {text}" if text else ""


def _latest_user_text(messages: list[ChatMessage]) -> str:
    """The text of the latest user message (the turn's question), or ``""``."""
    for message in reversed(messages):
        if _role(message) == "user":
            return _message_text(message)
    return ""


def _role(message: ChatMessage) -> str:
    role = message.role
    return str(getattr(role, "value", role))


class _FlushLock:
    """A lock a copy of the block does not share: a deep copy is a new lock (LlamaIndex and
    pydantic deep-copy components; ``threading.Lock`` itself cannot be copied)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def __deepcopy__(self, memo: dict[int, object]) -> _FlushLock:
        return _FlushLock()


class CognitiveMemoryBlock(BaseMemoryBlock[str]):
    """A LlamaIndex memory block backed by cogmem: recall what matters, not what is recent.

    Flushed chat messages (``_aput``) become episodic memories in ``namespace``, one per turn:
    a user's message and the replies after it (roles in ``roles``, with text), one line each,
    ``"user: ..."`` then ``"assistant: ..."``, as the LangChain middleware keeps an exchange,
    so that an assistant's "OK." is never recalled on its own. Each carries user metadata
    ``role`` (of its first message) and ``session_id``; all of one flush go in one write (so
    the core keeps them adjacent on its timeline). Every turn is stored as itself: two alike
    are two memories, never merged by write-time dedup. Their ``created_at`` is the time of
    the flush (``now``): ``Memory`` does not say when a message was written.

    With an ``extractor`` (``messages -> facts``; :func:`~llamaindex_cogmem.fact_extractor_from`
    builds one from any LLM, as ``FactExtractionMemoryBlock`` extracts facts), a flush keeps
    the facts it returns instead, as ``fact_type`` memories through write-time dedup: a
    restatement reinforces what is known, a change is stored as the newer version of what it
    changes.

    A flush whose write fails (a full disk, Chroma, the extractor) raises its ``CogmemError``
    out of ``Memory.aput`` and leaves nothing stored. ``Memory`` has archived those messages
    already and will not pass them again, so the block keeps them (:meth:`pending`, in RAM)
    and writes them with the next flush, each turn at the time of its own flush.

    Recall spans every session of ``namespace`` (``session_only=False``, the default): a
    long-term memory is kept to be recalled in later conversations, and ``namespace`` is what
    separates users. ``session_only=True`` recalls only the session ``Memory`` passes (a read
    with none is refused); ``None`` follows ``VectorMemoryBlock``'s rule (the session when one
    is known and no ``session_id`` filter of your own is given).

    Reading (``_aget``) searches the memory with the text of the latest ``query_window``
    messages (system and developer messages left out) and returns the results best first, one
    line each (:func:`cogmem.render`: ``- [episodic] user: ... (confidence 0.8, age 3d)``), as
    many as fit in ``token_budget`` tokens counted with ``tokenizer_fn`` (LlamaIndex's tokenizer by
    default, the one ``Memory`` counts with); a line that does not fit is skipped and the next
    one tried. The memories returned are reinforced (unless ``reinforce=False``) once per turn:
    on the first read for a user's message, not on the reads ``Memory`` makes again at each of
    an agent's tool steps (as the LangChain middleware does).

    ``priority`` is ``BaseMemoryBlock``'s, as ``Memory`` runs it (its code, where the base
    docstring says "1 = highest"): 0, the default, is never truncated (``token_budget`` bounds
    the block); otherwise, when the blocks and the chat exceed ``Memory``'s ``token_limit``,
    blocks are truncated lowest number first, this one by :meth:`atruncate` (its least
    relevant lines first), and a block still over is dropped whole.

    Use it in ``Memory``::

        block = CognitiveMemoryBlock(memory=mem, namespace="user-1")
        memory = Memory.from_defaults(session_id="chat-1", memory_blocks=[block],
                                      token_limit=4000)
        agent.run("...", memory=memory)         # or SimpleChatEngine.from_defaults(memory=...)

    Attributes:
        memory: The cogmem memory to store in and recall from.
        name: The block's name (the tag its content is wrapped in inside the prompt).
        namespace: The cogmem namespace (one user or agent).
        session_id: The session recorded on stored and reinforced memories when the messages
            and ``Memory`` do not give one (``Memory`` passes its own).
        session_only: ``False`` (default): recall every session's memories; ``True``: only
            the current session's, and a read with no session is refused; ``None``: the
            current session's when ``Memory`` (or ``session_id``) gives one, as
            ``VectorMemoryBlock`` does.
        similarity_top_k: At most this many memories per read.
        token_budget: At most this many tokens of block content.
        query_window: How many of the latest messages make the query.
        roles: Which roles' messages are stored.
        memory_type: The type of the stored messages.
        importance: Their importance (default: the memory's config).
        mode: ``hybrid`` | ``dense`` | ``lexical`` (default: the memory's config).
        filters: Extra cogmem filters (a dict) or LlamaIndex ``MetadataFilters`` for recall.
        min_score: Drop memories scoring below this (default: the memory's config).
        deep_recall: Also recall superseded memories (e.g. the originals consolidation merged
            into a summary), with the deep-recall penalty.
        reinforce: Strengthen recalled memories (default: the memory's config, on).
        now: The current time: a timezone-aware datetime, epoch seconds or a clock
            (``() -> datetime``); default the wall clock. Inject a clock to replay or test a
            conversation that spans days.
        tokenizer_fn: Counts tokens (``len(tokenizer_fn(text))``).
        extractor: What to keep of a flush (default: its turns); see above.
        fact_type: The type of the facts an ``extractor`` returns.
    """

    memory: InstanceOf[CognitiveMemory] = Field(exclude=True)
    name: str = Field(default="long_term_memory", min_length=1)
    description: str | None = Field(
        default="Memories from earlier in this and past conversations that are relevant now, "
        "most relevant first."
    )
    namespace: str = Field(default="default", min_length=1)
    session_id: str | None = None
    session_only: bool | None = False
    similarity_top_k: int = Field(default=5, ge=1)
    token_budget: int = Field(default=500, ge=1)
    query_window: int = Field(default=2, ge=1)
    roles: tuple[str, ...] = ("user", "assistant")
    memory_type: Literal["episodic", "semantic", "procedural", "core"] = "episodic"
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    mode: Literal["hybrid", "dense", "lexical"] | None = None
    filters: Any = Field(default=None, exclude=True)
    min_score: float | None = None
    deep_recall: bool = False
    reinforce: bool | None = None
    now: Any = Field(default=None, exclude=True)
    tokenizer_fn: Callable[[str], list[Any]] = Field(default_factory=get_tokenizer, exclude=True)
    extractor: Any = Field(default=None, exclude=True)
    fact_type: Literal["episodic", "semantic", "procedural", "core"] = "semantic"

    _cogmem_filters: dict[str, Any] = PrivateAttr(default_factory=dict)
    _reinforced_turn: tuple[str | None, str] | None = PrivateAttr(default=None)
    _pending: list[tuple[datetime, list[ChatMessage]]] = PrivateAttr(default_factory=list)
    _writing: _FlushLock = PrivateAttr(default_factory=lambda: _FlushLock())

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        check_now(self.now)
        if self.extractor is not None and not callable(self.extractor):
            raise InvalidTypeError("extractor must be a callable: messages -> list[str]")
        self._cogmem_filters = to_cogmem_filters(self.filters) or {}
        if self.session_only and SESSION_KEY in self._cogmem_filters:
            raise InvalidInputError(
                f"session_only=True sets the {SESSION_KEY!r} filter; do not give one in filters"
            )

    # ------------------------------------------------------------------ reading
    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """The memories relevant to the latest messages, rendered within ``token_budget``.

        Args:
            messages: The chat history so far (with the new input last).
            **block_kwargs: ``session_id`` (passed by ``Memory``) is used; others are ignored.

        Returns:
            One line per memory, best first; ``""`` when there is nothing to recall.
        """
        query = self._query(messages or [])
        if not query:
            return ""
        session = block_kwargs.get("session_id") or self.session_id
        moment = current_time(self.now)
        # One turn, one reinforcement: Memory reads the block again at each tool step of an
        # agent's turn (and once after it), always with the same latest user message.
        turn = (session, _latest_user_text(messages or []))
        turn_starts = turn != self._reinforced_turn
        results = await asyncio.to_thread(self._recall, query, session, moment, turn_starts)
        self._reinforced_turn = turn
        return self._pack(results, moment)

    def _query(self, messages: list[ChatMessage]) -> str:
        texts = [
            text
            for text in (_message_text(m) for m in messages if _role(m) not in _INSTRUCTIONS)
            if text
        ]
        return "\n".join(texts[-self.query_window :])

    def _recall(
        self, query: str, session: str | None, moment: datetime, turn_starts: bool = True
    ) -> list[SearchResult]:
        filters = dict(self._cogmem_filters)
        scoped = self.session_only
        if scoped is None:  # VectorMemoryBlock's rule: a session known, and no filter on it
            scoped = session is not None and SESSION_KEY not in filters
        if scoped:
            if session is None:
                raise InvalidInputError("session_only=True needs a session_id")
            filters[SESSION_KEY] = session
        settings = search_settings(
            self,
            top_k=self.similarity_top_k,
            filters=filters or None,
            now=moment,
            session_id=session,
            token_budget=None,  # the block packs its own text, in its own tokens (_pack)
        )
        if not turn_starts:  # a tool step's read: the turn's first read reinforced already
            settings["reinforce"] = False
        return self.memory.search(query, **settings)

    def _pack(self, results: list[SearchResult], moment: datetime) -> str:
        """Greedy packing by line in score order (design §4), counted as joined text.

        A memory whose text spans several lines is rendered on one (its line breaks become
        spaces), so that every line of the block is one memory.
        """
        lines: list[str] = []
        for result in results:
            line = " ".join(part.strip() for part in render([result], moment).splitlines())
            if self._tokens("\n".join([*lines, line])) <= self.token_budget:
                lines.append(line)
        return "\n".join(lines)

    def _tokens(self, text: str) -> int:
        return len(self.tokenizer_fn(text)) if text else 0

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop the least relevant memories (the last lines) until enough tokens are freed.

        ``Memory`` calls this when the blocks and the chat history exceed its token limit and
        this block's ``priority`` is not 0.

        Returns:
            The remaining lines, or ``None`` when none remain.
        """
        lines = content.split("\n") if content else []
        target = self._tokens(content) - tokens_to_truncate
        while lines and self._tokens("\n".join(lines)) > target:
            lines.pop()
        return "\n".join(lines) if lines else None

    # ------------------------------------------------------------------ writing
    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Store flushed messages as memories (one write for the whole flush, with any
        flush still pending)."""
        await asyncio.to_thread(self._store, list(messages))

    def pending(self) -> list[ChatMessage]:
        """The messages of flushes whose write failed, oldest first: the next flush writes
        them with its own (``Memory`` has archived them already and passes them once)."""
        with self._writing:
            return [m for _, flush in self._pending for m in flush]

    def _store(self, messages: list[ChatMessage]) -> None:
        for position, message in enumerate(messages):
            if not isinstance(message, ChatMessage):
                raise InvalidTypeError(
                    f"messages[{position}] must be a ChatMessage, got {type(message).__name__}"
                )
        moment = current_time(self.now)
        with self._writing:
            flushes = [*self._pending, (moment, messages)]
            try:
                if self.extractor is not None:
                    self._store_facts(flushes, moment)
                else:
                    self._store_turns(flushes, moment)
            except CogmemError as exc:  # a full disk, Chroma, the extractor: kept, retried
                self._pending = flushes
                count = sum(len(flush) for _, flush in flushes)
                logger.warning("%d flushed message(s) kept for the next flush: %s", count, exc)
                raise
            self._pending = []

    def _store_turns(
        self, flushes: list[tuple[datetime, list[ChatMessage]]], now: datetime
    ) -> None:
        items = [item for moment, messages in flushes for item in self._turns(messages, moment)]
        if items:
            self.memory.add_many(items, now=now)

    def _turns(self, messages: list[ChatMessage], moment: datetime) -> list[MemoryInput]:
        """One memory per turn of a flush: a user's message and what follows it."""
        turns: list[tuple[str, str | None, list[str]]] = []  # (first role, session, lines)
        for message in messages:
            role, text = _role(message), _message_text(message)
            if role not in self.roles or not text:
                continue
            if role == "user" or not turns:  # a user's message starts a turn
                turns.append((role, _session_of(message) or self.session_id, []))
            turns[-1][2].append(f"{role}: {text}")
        items = []
        for role, session, lines in turns:
            metadata = {ROLE_KEY: role}
            if session is not None:
                metadata[SESSION_KEY] = session
            items.append(
                MemoryInput(
                    text="\n".join(lines),
                    id=str(uuid.uuid4()),  # stored as itself: a turn said twice is two
                    memory_type=self.memory_type,
                    importance=self.importance,
                    created_at=moment,
                    namespace=self.namespace,
                    session_id=session,
                    metadata=metadata,
                )
            )
        return items

    def _store_facts(
        self, flushes: list[tuple[datetime, list[ChatMessage]]], now: datetime
    ) -> None:
        """Keep what the extractor finds in each flush, as facts through write-time dedup."""
        items = []
        for _, messages in flushes:
            facts = check_texts(list(self.extractor(list(messages))), "the extractor's facts")
            session = _first_session(messages) or self.session_id
            items += [
                MemoryInput(
                    text=fact,
                    memory_type=self.fact_type,
                    importance=self.importance,
                    namespace=self.namespace,
                    session_id=session,
                )
                for fact in facts
                if fact.strip()
            ]
        if items:
            self.memory.write_many(items, now=now)


def _first_session(messages: list[ChatMessage]) -> str | None:
    return next((s for s in map(_session_of, messages) if s is not None), None)


def _session_of(message: ChatMessage) -> str | None:
    """The session ``Memory`` stamped on a flushed message (``additional_kwargs``)."""
    extra: Mapping[str, Any] = message.additional_kwargs or {}
    session = extra.get(SESSION_KEY)
    return session if isinstance(session, str) and session else None
