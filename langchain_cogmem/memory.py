"""``CognitiveConversationMemory``: classic LangChain chain memory backed by cogmem.

LangChain 1.x keeps ``BaseMemory`` (for ``ConversationChain``, ``LLMChain(memory=...)`` and
friends) in the ``langchain-classic`` package; this module needs it installed.
"""

from __future__ import annotations

import uuid
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
    MemoryNotFoundError,
    MemoryRecord,
    SearchResult,
)
from cogmem.recall import search_settings

from ._convert import current_time, list_memories

__all__ = ["CognitiveConversationMemory"]

ROLE_KEY = "role"
SESSION_KEY = "session_id"
# An exchange is one memory: the human text, a newline, the AI text; ``human_chars`` splits it.
EXCHANGE = "exchange"
HUMAN_CHARS_KEY = "human_chars"


class CognitiveConversationMemory(BaseMemory):
    """Chain memory that recalls the past turns relevant to the new input, not the last ones.

    ``save_context`` stores each exchange, the human input and the model's output, as one
    memory (``memory_type`` episodic by default; its text is the input, a newline, the
    output) in ``namespace``, tagged with the session id (the core records it, and user
    metadata ``role="exchange"`` and ``session_id`` make both filterable). Every exchange is
    stored as itself: two alike are never merged by write-time dedup (a conversation is a
    log). ``load_memory_variables`` searches the memory with the new input at ``now()``: old
    exchanges that matter still come back, unrelated ones fade. ``k`` counts exchanges, and a
    recalled exchange comes back whole, question and answer, in the order they were said (not
    by score), under ``memory_key``, as text (``"Human: ...\\nAI: ..."``) or, with
    ``return_messages=True``, as ``HumanMessage``/``AIMessage`` pairs whose ids are
    ``"<memory id>:human"`` and ``"<memory id>:ai"``. Memories stored one turn each (by
    earlier versions, ``role`` ``human`` or ``ai``) are still recalled, a turn each.

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
        k: At most this many exchanges recalled.
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
        """Store one exchange, the input and the output, as one memory (an empty side is
        left out; nothing is stored when both are empty).

        Args:
            inputs: The chain's inputs (the one named by ``input_key`` is stored).
            outputs: The chain's outputs (the one named by ``output_key`` is stored).

        Raises:
            InvalidInputError: The input or output key cannot be determined.
            InvalidTypeError: The input or output is not text (or a message).
        """
        human, ai = self._input_text(inputs), self._output_text(outputs)
        human, ai = (human if human.strip() else ""), (ai if ai.strip() else "")
        if not (human or ai):
            return
        moment = current_time(self.now)
        self.memory.add(
            "\n".join(side for side in (human, ai) if side),
            id=uuid.uuid4().hex,  # stored as itself: an exchange said twice is two exchanges
            memory_type=self.memory_type,
            importance=self.importance,
            created_at=moment,
            namespace=self.namespace,
            session_id=self.session_id,
            metadata={**self._metadata(EXCHANGE), HUMAN_CHARS_KEY: len(human)},
            now=moment,
        )

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
        results.sort(key=lambda r: r.memory.created_at)
        turns = [turn for r in results for turn in _turns(r.memory)]
        if self.return_messages:
            return {self.memory_key: [_message(*t) for t in turns]}
        prefix = {"human": self.human_prefix, "ai": self.ai_prefix}
        return {self.memory_key: "\n".join(f"{prefix[role]}: {text}" for _, role, text in turns)}

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


def _turns(record: MemoryRecord) -> list[tuple[str, str, str]]:
    """The turns a stored memory holds, as ``(message id, role, text)``: an exchange's two
    (its ``human_chars`` split the text), or a one-turn memory's one."""
    role = record.metadata.get(ROLE_KEY)
    if role != EXCHANGE:
        return [(record.id, "ai" if role == "ai" else "human", record.text)]
    cut = record.metadata.get(HUMAN_CHARS_KEY)
    cut = cut if isinstance(cut, int) and 0 <= cut <= len(record.text) else len(record.text)
    human, ai = record.text[:cut], record.text[cut + 1 :] if cut else record.text
    return [(f"{record.id}:{r}", r, t) for r, t in (("human", human), ("ai", ai)) if t]


def _message(id: str, role: str, text: str) -> BaseMessage:
    return AIMessage(content=text, id=id) if role == "ai" else HumanMessage(content=text, id=id)


def _as_text(value: Any, name: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseMessage):
        return str(value.text)
    raise InvalidTypeError(f"{name} must be text or a message, got {type(value).__name__}")
