"""``CognitiveConversationMemory``: classic LangChain chain memory backed by cogmem.

LangChain 1.x keeps ``BaseMemory`` (for ``ConversationChain``, ``LLMChain(memory=...)`` and
friends) in the ``langchain-classic`` package; this module needs it installed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from langchain_classic.base_memory import BaseMemory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import ConfigDict, Field

from cogmem import (
    CognitiveMemory,
    InvalidInputError,
    InvalidTypeError,
    MemoryInput,
    MemoryNotFoundError,
    SearchResult,
)
from cogmem.recall import search_settings

from ._convert import current_time, list_memories

__all__ = ["CognitiveConversationMemory"]

ROLE_KEY = "role"
SESSION_KEY = "session_id"
_ROLE_ORDER = {"human": 0, "ai": 1}


class CognitiveConversationMemory(BaseMemory):
    """Chain memory that recalls the past turns relevant to the new input, not the last ones.

    ``save_context`` stores the human input and the model's output of each exchange as two
    memories (``memory_type`` episodic by default) in ``namespace``, tagged with the session
    id (the core records it, and user metadata ``role`` and ``session_id`` make both
    filterable). ``load_memory_variables`` searches the memory with the new input at
    ``now()``: old exchanges that matter still come back, unrelated ones fade. The recalled
    turns are returned in the order they were said (not by score), under ``memory_key``, as
    text (``"Human: ...\\nAI: ..."``) or, with ``return_messages=True``, as ``HumanMessage``/
    ``AIMessage`` objects whose ``id`` is the memory id.

    Use it wherever classic LangChain takes a memory::

        memory = CognitiveConversationMemory(memory=mem, session_id="chat-1", k=6)
        chain = ConversationChain(llm=model, memory=memory)

    Attributes:
        memory: The cogmem memory to store in and recall from.
        namespace: The cogmem namespace (one user or agent); ``clear`` empties it.
        session_id: This conversation's id (recorded on stored and reinforced memories).
        session_only: Recall only this session's turns (default: every session's).
        memory_key: The prompt variable the recalled turns are returned under.
        input_key: The input to store and search with (default: the only input that is not
            a memory variable).
        output_key: The output to store (default: the only output, else ``output``).
        return_messages: Return messages instead of text.
        human_prefix: Label of human turns in the text form.
        ai_prefix: Label of model turns in the text form.
        k: At most this many turns recalled.
        mode: ``hybrid`` | ``dense`` | ``lexical`` (default: the memory's config).
        filters: Extra cogmem filters for recall.
        min_score: Drop turns scoring below this (default: the memory's config).
        deep_recall: Also recall superseded turns (e.g. the originals consolidation merged
            into a summary), with the deep-recall penalty.
        token_budget: At most this many tokens of recalled text.
        reinforce: Strengthen recalled turns (default: the memory's config, on).
        memory_type: Type of the stored turns (``episodic`` by default).
        importance: Importance of the stored turns (default: the memory's config).
        now: A clock (``() -> datetime``, timezone-aware); default the wall clock. Inject one
            to replay or test a conversation that spans days.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: CognitiveMemory = Field(exclude=True)
    namespace: str = Field(default="default", min_length=1)
    session_id: str | None = None
    session_only: bool = False
    memory_key: str = Field(default="history", min_length=1)
    input_key: str | None = None
    output_key: str | None = None
    return_messages: bool = False
    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    k: int = Field(default=4, ge=1)
    mode: Literal["hybrid", "dense", "lexical"] | None = None
    filters: dict[str, Any] | None = None
    min_score: float | None = None
    deep_recall: bool = False
    token_budget: int | None = Field(default=None, ge=1)
    reinforce: bool | None = None
    memory_type: Literal["episodic", "semantic", "procedural", "core"] = "episodic"
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    now: Callable[[], datetime] | None = Field(default=None, exclude=True)

    @property
    def memory_variables(self) -> list[str]:
        """The one variable this memory adds to a chain's inputs: ``memory_key``."""
        return [self.memory_key]

    # ------------------------------------------------------------------ keys
    def _input_text(self, inputs: dict[str, Any]) -> str:
        if self.input_key is not None:
            key = self.input_key
        else:
            candidates = sorted(set(inputs) - {self.memory_key, "stop"})
            if len(candidates) != 1:
                raise InvalidInputError(
                    f"CognitiveConversationMemory expected one input besides "
                    f"{self.memory_key!r}, got {candidates}; set input_key"
                )
            key = candidates[0]
        if key not in inputs:
            raise InvalidInputError(f"input_key {key!r} is not among the inputs {sorted(inputs)}")
        return _as_text(inputs[key], f"inputs[{key!r}]")

    def _output_text(self, outputs: dict[str, Any]) -> str:
        if self.output_key is not None:
            key = self.output_key
        elif len(outputs) == 1:
            key = next(iter(outputs))
        elif "output" in outputs:
            key = "output"
        else:
            raise InvalidInputError(
                f"CognitiveConversationMemory got several outputs {sorted(outputs)} and none "
                "is 'output'; set output_key"
            )
        if key not in outputs:
            raise InvalidInputError(
                f"output_key {key!r} is not among the outputs {sorted(outputs)}"
            )
        return _as_text(outputs[key], f"outputs[{key!r}]")

    # ------------------------------------------------------------------ BaseMemory
    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Store one exchange: the input and the output, each as its own memory.

        Both are written in one call, the input first, so the core keeps them adjacent on its
        timeline (recalling one brings its neighbour along as temporal context). An empty
        side is not stored.

        Args:
            inputs: The chain's inputs (the one named by ``input_key`` is stored).
            outputs: The chain's outputs (the one named by ``output_key`` is stored).

        Raises:
            InvalidInputError: The input or output key cannot be determined.
            InvalidTypeError: The input or output is not text (or a message).
        """
        turns = [("human", self._input_text(inputs)), ("ai", self._output_text(outputs))]
        moment = current_time(self.now)
        items = [
            MemoryInput(
                text=text,
                memory_type=self.memory_type,
                importance=self.importance,
                created_at=moment,
                namespace=self.namespace,
                session_id=self.session_id,
                metadata=self._metadata(role),
            )
            for role, text in turns
            if text.strip()
        ]
        if items:
            self.memory.add_many(items, now=moment)

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Recall the stored turns most relevant to the new input, now.

        Args:
            inputs: The chain's inputs; the one named by ``input_key`` is the query.

        Returns:
            ``{memory_key: text}`` or ``{memory_key: [messages]}`` (``return_messages``), the
            recalled turns in the order they were said; empty when nothing is recalled.
        """
        query = self._input_text(inputs)
        results = self._recall(query) if query.strip() else []
        results.sort(key=_said_order)
        if self.return_messages:
            return {self.memory_key: [self._message(r) for r in results]}
        return {self.memory_key: "\n".join(self._line(r) for r in results)}

    def clear(self) -> None:
        """Forget every memory in ``namespace`` (every session's, every status)."""
        for record in list_memories(self.memory, self.namespace):
            try:
                self.memory.delete(record.id, namespace=self.namespace)
            except MemoryNotFoundError:  # deleted meanwhile by someone else
                continue

    # ------------------------------------------------------------------ helpers
    def _metadata(self, role: str) -> dict[str, str]:
        meta = {ROLE_KEY: role}
        if self.session_id is not None:
            meta[SESSION_KEY] = self.session_id
        return meta

    def _recall(self, query: str) -> list[SearchResult]:
        filters = dict(self.filters or {})
        if self.session_only:
            if self.session_id is None:
                raise InvalidInputError("session_only=True needs a session_id")
            filters[SESSION_KEY] = self.session_id
        return self.memory.search(
            query,
            **search_settings(
                self, top_k=self.k, filters=filters or None, now=current_time(self.now)
            ),
        )

    def _line(self, result: SearchResult) -> str:
        role = result.memory.metadata.get(ROLE_KEY)
        prefix = self.ai_prefix if role == "ai" else self.human_prefix
        return f"{prefix}: {result.memory.text}"

    def _message(self, result: SearchResult) -> BaseMessage:
        role = result.memory.metadata.get(ROLE_KEY)
        if role == "ai":
            return AIMessage(content=result.memory.text, id=result.memory.id)
        return HumanMessage(content=result.memory.text, id=result.memory.id)


def _said_order(result: SearchResult) -> tuple[datetime, int]:
    role = str(result.memory.metadata.get(ROLE_KEY, "human"))
    return result.memory.created_at, _ROLE_ORDER.get(role, 0)


def _as_text(value: Any, name: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseMessage):
        return str(value.text)
    raise InvalidTypeError(f"{name} must be text or a message, got {type(value).__name__}")
