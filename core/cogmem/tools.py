"""Memory tools for agents, framework-free: search, remember, forget, update, history.

What langmem offers LangGraph agents, on cogmem: five plain methods with docstrings written
for a model, which each adapter turns into its framework's tools
(``langchain_cogmem.memory_tools``, ``llamaindex_cogmem.memory_tools``). Each returns a
short text for the model; bad input raises a :class:`~cogmem.errors.CogmemError` whose
message the adapters hand back to the model, so it can correct itself.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypedDict

from .checks import check_int, check_memory_type, check_name, check_text, resolve_now
from .clients import DEFAULT_NAMESPACE
from .memory import CognitiveMemory, require_memory
from .packing import render

__all__ = ["MemoryTools", "ToolOptions"]

Clock = Callable[[], datetime]


class ToolOptions(TypedDict, total=False):
    """The options of :class:`MemoryTools` besides the memory (what each adapter's
    ``memory_tools`` takes)."""

    namespace: str | Callable[[], str]
    session_id: str | None
    k: int
    memory_type: str
    now: Clock | None


class MemoryTools:
    """The tools an agent uses to keep its own long-term memory in one namespace.

    Setup: ``tools = MemoryTools(mem, namespace="user-ana")``; give
    ``tools.search_memory``, ``tools.remember``, ``tools.forget``, ``tools.update_memory`` and
    ``tools.memory_history`` to an agent (through an adapter's ``memory_tools``).

    Args:
        memory: The memory to keep.
        namespace: Whose memory it is (one user or agent), or a callable that says so for each
            call (an adapter's namespace template filled from the run:
            :class:`cogmem.scope.NamespaceTemplate`).
        session_id: Recorded on what the tools store and recall.
        k: How many memories a search returns by default.
        memory_type: The type of what ``remember`` stores (``semantic``: facts).
        now: A clock (``() -> datetime``, timezone-aware); default the wall clock.
    """

    def __init__(
        self,
        memory: CognitiveMemory,
        *,
        namespace: str | Callable[[], str] = DEFAULT_NAMESPACE,
        session_id: str | None = None,
        k: int = 5,
        memory_type: str = "semantic",
        now: Clock | None = None,
    ) -> None:
        require_memory(memory)
        self.memory = memory
        self.namespace = namespace if callable(namespace) else check_name(namespace, "namespace")
        self.session_id = None if session_id is None else check_name(session_id, "session_id")
        self.k = check_int(k, "k")
        self.memory_type = check_memory_type(memory_type)
        self.now = now

    def _now(self) -> datetime:
        return resolve_now(None if self.now is None else self.now())

    def _namespace(self) -> str:
        """The namespace of this call."""
        spec = self.namespace
        return check_name(spec() if callable(spec) else spec, "namespace")

    def search_memory(self, query: str, k: int | None = None) -> str:
        """Search your long-term memory for what you know that bears on the query.

        Args:
            query: What to look for, in words.
            k: At most this many memories (default 5).

        Returns:
            One list item per memory, best first, with its id:
            ``- [semantic] text (id ..., ...)`` (a memory's later lines indented under it).
        """
        moment = self._now()
        results = self.memory.search(
            check_text(query, "query"),
            top_k=self.k if k is None else check_int(k, "k"),
            namespace=self._namespace(),
            session_id=self.session_id,
            now=moment,
        )
        return render(results, moment, ids=True) if results else "No memories found."

    def remember(self, text: str) -> str:
        """Store something worth remembering beyond this conversation (a fact, a preference,
        a decision), in one plain sentence.

        Args:
            text: What to remember.

        Returns:
            What happened: stored (with its id), already known (merged into that memory), or
            stored as the newer version of an older memory.
        """
        outcome = self.memory.write(
            check_text(text, "text"),
            memory_type=self.memory_type,
            namespace=self._namespace(),
            session_id=self.session_id,
            now=self._now(),
        )
        if outcome.action == "merged":
            return f"Already known as memory {outcome.id}; reinforced it."
        if outcome.action == "new_version":
            return f"Stored as memory {outcome.id}, the newer version of {outcome.existing_id}."
        return f"Stored as memory {outcome.id}."

    def forget(self, memory_id: str) -> str:
        """Forget a memory for good (one that is wrong or that the user asked you to forget).

        Args:
            memory_id: The id that search_memory showed.

        Returns:
            A confirmation.
        """
        self.memory.delete(check_name(memory_id, "memory_id"), namespace=self._namespace())
        return f"Forgot memory {memory_id}."

    def update_memory(self, memory_id: str, text: str) -> str:
        """Replace what a memory says (a fact that changed): the new text is stored and the
        old memory kept as superseded by it.

        Args:
            memory_id: The id that search_memory showed.
            text: What is true now, in one plain sentence.

        Returns:
            The new memory's id.
        """
        namespace = self._namespace()
        old = self.memory.get(check_name(memory_id, "memory_id"), namespace=namespace)
        moment = self._now()
        new_id = self.memory.add(
            check_text(text, "text"),
            memory_type=old.memory_type,
            tags=old.tags,
            metadata=dict(old.metadata),
            namespace=namespace,
            session_id=self.session_id,
            now=moment,
        )
        if new_id == old.id:
            return f"Memory {old.id} already says that; reinforced it."
        self.memory.supersede(old.id, new_id, namespace=namespace)
        return f"Updated: memory {new_id} replaces {old.id}."

    def memory_history(self, memory_id: str) -> str:
        """Show how a memory changed over time: every version of it (the corrections stored
        as its newer versions, and what it corrected), oldest first.

        Args:
            memory_id: The id that search_memory showed (any version).

        Returns:
            One line per version, oldest first, the newest marked current:
            ``- 2026-05-01: text (id ...)`` ... ``- 2026-06-01: text (id ..., current)``.
        """
        versions = self.memory.history(
            check_name(memory_id, "memory_id"), namespace=self._namespace(), now=self._now()
        )
        last = len(versions) - 1
        return "\n".join(
            f"- {v.created_at:%Y-%m-%d}: {v.text} (id {v.id}{', current' if n == last else ''})"
            for n, v in enumerate(versions)
        )

    def functions(self) -> list[Callable[..., str]]:
        """The five tools as bound methods, in the order an agent's prompt should list them."""
        return [
            self.search_memory,
            self.remember,
            self.forget,
            self.update_memory,
            self.memory_history,
        ]
