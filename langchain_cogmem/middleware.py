"""``CognitiveMemoryMiddleware``: long-term memory for ``langchain.agents.create_agent``.

An ``AgentMiddleware`` recalls before each model call and remembers after each turn, so an
agent built with ``create_agent(model, tools, middleware=[...])`` has a memory without a
tool call spent on it (the memory tools, :func:`~langchain_cogmem.memory_tools`, are there
for an agent that should decide itself; ``tools=True`` registers them too).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from cogmem import (
    CognitiveMemory,
    InvalidInputError,
    InvalidTypeError,
    MemoryInput,
    SearchResult,
    render,
)
from cogmem.checks import (
    check_bool,
    check_int,
    check_memory_type,
    check_name,
    check_texts,
    suggest,
)
from cogmem.memory import require_memory
from cogmem.recall import search_settings
from cogmem.records import STATED_KEY
from cogmem.scope import NamespaceTemplate

from ._convert import current_time
from .scope import run_values
from .store_items import item_text
from .store_keys import encode_namespace
from .tools import memory_tools

__all__ = ["CognitiveMemoryMiddleware", "Extractor"]

#: ``(the turn's messages, from the user's message on) -> texts to remember``.
Extractor = Callable[[Sequence[BaseMessage]], Sequence[str]]

_SEARCH_ARGS = frozenset({"mode", "filters", "min_score", "deep_recall", "reinforce"})

DEFAULT_HEADING = "Long-term memories that may be relevant (each with its id):"


class CognitiveMemoryMiddleware(AgentMiddleware):
    """Recall what matters before each model call, remember each turn after it.

    Setup::

        agent = create_agent(model, tools=[...], middleware=[
            CognitiveMemoryMiddleware(mem, namespace="user-ana", session_id="chat-7")])

    Recall (``wrap_model_call``): the latest user message is the query; the memories it
    recalls in ``namespace`` (at most ``k``, within ``token_budget`` tokens of memory text)
    are added to the system message under ``heading``, one list item each with its id
    (:func:`cogmem.render`). Only the first model call of a turn reinforces what it recalls;
    the calls after a tool result recall the same without reinforcing again.

    Remember (``after_agent``): the turn's exchange, the user's message and the final reply,
    is stored as one episodic memory, as itself (two alike are two memories). When the user's
    message states how things are ("I moved to Berlin.", "My sister is a nurse."; read as
    :attr:`cogmem.statements.Statement.fact`), it is also kept as a ``fact_type`` memory
    through write-time dedup (``facts=True``, the default): a restatement reinforces what is
    known, a change is stored as the newer version of what it changes and recalled before it.
    The exchange then names that fact (metadata ``states_fact``) and ranks right below it once
    the fact is outdated (:data:`cogmem.records.STATED_KEY`). With an ``extractor``
    (``messages -> list[str]``, e.g. an LLM that pulls out facts), its texts are stored
    instead of both, as ``fact_type`` memories through write-time dedup.

    Async: ``awrap_model_call`` and ``aafter_agent`` run the memory's calls in a worker
    thread.

    One agent for many users: ``namespace="user-{user_id}"`` is filled at each call from the
    run's context (``invoke(..., context={"user_id": "ana"})``) or ``config["configurable"]``
    (:mod:`langchain_cogmem.scope`), for the recall, the turn remembered and the tools alike.

    One memory through the middleware and the LangGraph store: a tuple namespace,
    ``("users", "{user_id}")``, is that store namespace (:class:`CognitiveMemoryStore` with
    the same ``store_prefix``): the middleware recalls the store's items, shown as text (a
    value's text field, or ``field: value; ...``), not JSON, and remembers its turns there.

    Args:
        memory: The memory to recall from and store in.
        namespace: Whose memory (one user or agent), or a template of it filled per call; a
            tuple is a LangGraph store namespace (each label may be a template).
        store_prefix: The ``prefix`` of the :class:`CognitiveMemoryStore` a tuple namespace
            belongs to (default ``lg``, the store's).
        session_id: Recorded on what is stored and reinforced.
        k: At most this many memories per model call.
        token_budget: At most this many tokens of memory text per model call.
        heading: The line above the memories in the system message.
        extractor: What to remember of a turn (default: the exchange).
        fact_type: The type of the facts kept (the user's statements, or what ``extractor``
            returns; default ``semantic``).
        facts: Keep what the user states as facts besides the exchange (default ``True``).
        tools: Also give the agent the memory tools (search, remember, forget, update).
        now: A clock (``() -> datetime``, timezone-aware); default the wall clock.
        name: The middleware's name in the agent (default the class name); give each of two
            instances in one agent its own.
        **search: ``mode``, ``filters``, ``min_score``, ``deep_recall``, ``reinforce`` as for
            :meth:`cogmem.CognitiveMemory.search`.
    """

    def __init__(
        self,
        memory: CognitiveMemory,
        *,
        namespace: str | tuple[str, ...] = "default",
        session_id: str | None = None,
        k: int = 5,
        token_budget: int = 400,
        heading: str = DEFAULT_HEADING,
        extractor: Extractor | None = None,
        fact_type: str = "semantic",
        facts: bool = True,
        tools: bool = False,
        now: Callable[[], datetime] | None = None,
        name: str | None = None,
        store_prefix: str = "lg",
        **search: Any,
    ) -> None:
        require_memory(memory)
        unknown = sorted(set(search) - _SEARCH_ARGS)
        if unknown:
            known = {*_SEARCH_ARGS, "k", "token_budget", "namespace", "session_id", "name"}
            hints = ", ".join(f"{u!r}{suggest(u, known)}" for u in unknown)
            raise InvalidInputError(f"CognitiveMemoryMiddleware got unknown argument(s) {hints}")
        check_memory_type(fact_type, "fact_type")
        if extractor is not None and not callable(extractor):
            raise InvalidTypeError("extractor must be a callable: messages -> list[str]")
        super().__init__()
        self.memory = memory
        labels = namespace if isinstance(namespace, tuple) else (namespace,)
        self._templates = tuple(NamespaceTemplate(label) for label in labels)
        self._store_prefix = store_prefix if isinstance(namespace, tuple) else None
        if self._store_prefix is not None and not self._templates:
            raise InvalidInputError("a store namespace needs at least one label")
        self.namespace = namespace
        self._name = None if name is None else check_name(name, "name")
        self.session_id = None if session_id is None else check_name(session_id, "session_id")
        self.k = check_int(k, "k")
        self.token_budget = check_int(token_budget, "token_budget")
        self.heading = heading
        self.extractor = extractor
        self.fact_type = fact_type
        self.facts = check_bool(facts, "facts")
        self.now = now
        self.mode = search.get("mode")
        self.filters = search.get("filters")
        self.min_score = search.get("min_score")
        self.deep_recall = bool(search.get("deep_recall", False))
        self.reinforce: bool | None = search.get("reinforce")
        # The tools share the middleware's namespace, filled from the run they are called in.
        scope = (
            self._namespace(None)
            if all(t.fixed for t in self._templates)
            else lambda: self._namespace(None)
        )
        self.tools = (
            memory_tools(memory, namespace=scope, session_id=session_id, now=now) if tools else []
        )

    @property
    def name(self) -> str:
        """The middleware's name in the agent (``name=``, else the class name)."""
        return self._name or type(self).__name__

    def _namespace(self, runtime: Any) -> str:
        """The namespace of this call (the templates filled from the run)."""
        fixed = all(t.fixed for t in self._templates)
        values = {} if fixed else run_values(runtime)
        labels = [t.fill(values) for t in self._templates]
        if self._store_prefix is None:
            return labels[0]
        return encode_namespace(tuple(labels), self._store_prefix)

    # ------------------------------------------------------------------ recall
    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        """Add the recalled memories to the system message, then call the model."""
        return handler(self._with_memories(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        """:meth:`wrap_model_call`, the recall in a worker thread."""
        return await handler(await asyncio.to_thread(self._with_memories, request))

    def _with_memories(self, request: ModelRequest) -> ModelRequest:
        query = _latest_user_text(request.messages)
        if not query:
            return request
        moment = current_time(self.now)
        first_call = bool(request.messages) and isinstance(request.messages[-1], HumanMessage)
        namespace = self._namespace(request.runtime)
        results = self._recall(query, moment, namespace, reinforce=first_call)
        if not results:
            return request
        block = f"{self.heading}\n{render(results, moment, ids=True, text=item_text)}"
        return request.override(system_message=_appended(request.system_message, block))

    def _recall(
        self, query: str, moment: datetime, namespace: str, *, reinforce: bool
    ) -> list[SearchResult]:
        settings = search_settings(
            self,
            top_k=self.k,
            token_budget=self.token_budget,
            namespace=namespace,
            session_id=self.session_id,
            now=moment,
        )
        if not reinforce:
            settings["reinforce"] = False
        return self.memory.search(query, **settings)

    # ------------------------------------------------------------------ remember
    def after_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Store what the turn leaves to remember; changes nothing in the agent's state."""
        self._remember(_messages(state), self._namespace(runtime))
        return None

    async def aafter_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """:meth:`after_agent`, in a worker thread."""
        await asyncio.to_thread(self._remember, _messages(state), self._namespace(runtime))
        return None

    def _remember(self, messages: Sequence[BaseMessage], namespace: str) -> None:
        start = next(
            (i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)),
            None,
        )
        if start is None:
            return
        turn = list(messages[start:])
        moment = current_time(self.now)
        if self.extractor is not None:
            texts = check_texts(list(self.extractor(turn)), "the extractor's texts")
            facts = [
                MemoryInput(
                    text=t,
                    memory_type=self.fact_type,
                    namespace=namespace,
                    session_id=self.session_id,
                )
                for t in texts
                if t.strip()
            ]
            if facts:
                self.memory.add_many(facts, now=moment)
            return
        said, reply = turn[0].text.strip(), _final_reply(turn)
        # the fact first: written after its own exchange, it would be read as that exchange
        # said again with another type (a newer version of it), not as what it updates
        fact = None
        if said and self.facts and _states_a_fact(self.memory, said):
            fact = self.memory.write(
                said,
                memory_type=self.fact_type,
                namespace=namespace,
                session_id=self.session_id,
                now=moment,
            ).id
        text = "\n".join(part for part in (said, reply) if part)
        if text:
            self.memory.add(
                text,
                id=str(uuid.uuid4()),  # stored as itself: a turn said twice is two turns
                memory_type="episodic",
                namespace=namespace,
                session_id=self.session_id,
                metadata={STATED_KEY: fact} if fact else None,  # ranked right below it
                now=moment,
            )


def _states_a_fact(memory: CognitiveMemory, text: str) -> bool:
    """Whether ``text`` states how things are (the memory's own reading of statements)."""
    versions = memory.versions
    return versions is not None and versions.memory_types([text]) == ["semantic"]


def _messages(state: Any) -> Sequence[BaseMessage]:
    messages = state.get("messages", []) if isinstance(state, Mapping) else []
    return [m for m in messages if isinstance(m, BaseMessage)]


def _latest_user_text(messages: Sequence[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text.strip()
    return ""


def _final_reply(turn: Sequence[BaseMessage]) -> str:
    """The last model message of the turn that answers (text, no tool call pending)."""
    for message in reversed(turn):
        if isinstance(message, AIMessage) and not message.tool_calls and message.text.strip():
            return message.text.strip()
    return ""


def _appended(system: SystemMessage | None, block: str) -> SystemMessage:
    """The system message with ``block`` after what it says (its content blocks kept)."""
    if system is None:
        return SystemMessage(content=block)
    if isinstance(system.content, str):
        joined = f"{system.content}\n\n{block}" if system.content else block
        return SystemMessage(content=joined)
    return SystemMessage(content=[*system.content, {"type": "text", "text": block}])
