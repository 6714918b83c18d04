"""Pulling lasting facts out of a conversation with a language model: the framework-free part.

A fact extractor turns a conversation (its lines, ``"role: text"``) into the facts worth
keeping, one plain sentence each; what it returns is stored as facts through write-time dedup
(a restatement reinforces what is known, a change is stored as the newer version of what it
changes). Each adapter builds one from its framework's model
(``llamaindex_cogmem.fact_extractor_from``); the default prompt, its variable and how a reply
is read live here, once: :func:`model_extractor` wraps the adapter's ``ask(values) -> reply``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from .checks import check_texts
from .errors import ExtractorError, InvalidInputError

__all__ = ["CONVERSATION_VARIABLE", "HUMAN", "SYSTEM", "model_extractor", "parse_facts"]

#: The variable an extraction prompt must have: the conversation, one ``role: text`` line each.
CONVERSATION_VARIABLE = "conversation"

#: The system instructions of the default extraction prompt.
SYSTEM = (
    "You keep an assistant's long-term memory of its user. From the conversation, list the "
    "lasting facts the user states about themselves, the people and things in their life, "
    "their plans and their preferences, and what they ask to be remembered: one plain sentence "
    "per line, naming who it is about ('The user ...'). Leave out greetings, thanks, "
    "acknowledgements, questions and what the assistant says. If nothing is worth keeping, "
    "answer NONE."
)
#: The user message of the default extraction prompt.
HUMAN = "Conversation:\n{conversation}\n\nFacts:"

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
_NOTHING = frozenset({"none", "none.", "nothing", "nothing.", "n/a"})

Ask = Callable[[Mapping[str, str]], object]


def parse_facts(reply: str) -> list[str]:
    """The facts of a model's reply: one per line, bullets and numbering taken off, ``NONE``
    and empty lines left out."""
    facts = []
    for line in reply.splitlines():
        fact = _BULLET.sub("", line).strip()
        if fact and fact.lower() not in _NOTHING:
            facts.append(fact)
    return facts


def model_extractor(
    ask: Ask, names: set[str], model_name: str
) -> Callable[[Sequence[str]], list[str]]:
    """A fact extractor that asks a model through ``ask``.

    Args:
        ask: Sends ``{"conversation": ...}`` to the model and returns its reply (its text).
        names: The variables the prompt uses: exactly ``{conversation}``.
        model_name: How messages name the model.

    Returns:
        ``extract(lines) -> facts``: nothing for an empty conversation.

    Raises:
        InvalidInputError: The prompt's variables are not exactly ``{conversation}``.
    """
    if names != {CONVERSATION_VARIABLE}:
        raise InvalidInputError(
            f"the extraction prompt must have exactly the {{{CONVERSATION_VARIABLE}}} variable; "
            f"it has {sorted(names)}"
        )

    def extract(lines: Sequence[str]) -> list[str]:
        said = [line for line in check_texts(lines, "the conversation") if line.strip()]
        if not said:
            return []
        try:
            reply = ask({CONVERSATION_VARIABLE: "\n".join(said)})
        except Exception as exc:
            raise ExtractorError(
                f"the fact extractor model {model_name} failed ({type(exc).__name__}: {exc}); "
                "nothing was stored"
            ) from exc
        if not isinstance(reply, str):
            raise ExtractorError(
                f"the fact extractor model {model_name} returned {type(reply).__name__}; "
                "expected text; nothing was stored"
            )
        return parse_facts(reply)

    extract.__doc__ = f"Extract lasting facts with {model_name} (a cogmem fact extractor)."
    return extract
