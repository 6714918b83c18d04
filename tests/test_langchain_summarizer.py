"""summarizer_from: any chat model, LLM or Runnable as cogmem's summarizer, failures included."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda
from pydantic import Field

from cogmem import CogmemError, InvalidInputError, InvalidTypeError
from langchain_cogmem import DEFAULT_SUMMARY_PROMPT, SummarizerError, summarizer_from

TEXTS = [
    "User bought a red bicycle in May",
    "User rides the red bicycle to work",
    "User's bicycle has a basket",
]


class RecordingChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that also keeps every prompt it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


class BrokenChatModel(GenericFakeChatModel):
    """A chat model whose provider is down."""

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("provider unavailable")


def test_chat_model_with_the_default_prompt() -> None:
    model = RecordingChatModel(
        messages=iter([AIMessage(content="  User rides a red bicycle with a basket to work. ")]),
    )
    summarize = summarizer_from(model)
    texts = list(TEXTS)
    assert summarize(texts) == "User rides a red bicycle with a basket to work."
    assert texts == TEXTS  # input untouched
    system, human = model.seen[0]
    assert "consolidate" in str(system.content)
    assert str(human.content) == "Memories (3):\n" + "\n".join(f"- {t}" for t in TEXTS)
    assert set(DEFAULT_SUMMARY_PROMPT.input_variables) == {"memories", "count"}


def test_custom_prompts_llms_and_runnables() -> None:
    llm = FakeListLLM(responses=["one bicycle, red, with basket"])
    summarize = summarizer_from(llm, "Merge these:\n{memories}")
    assert summarize(TEXTS) == "one bicycle, red, with basket"

    seen: list[str] = []

    def echo(prompt: Any) -> str:
        seen.append(prompt.to_string())
        return "merged"

    template = PromptTemplate.from_template("{count} memories:\n{memories}\nSummary:")
    assert summarizer_from(RunnableLambda(echo), template)(TEXTS[:2]) == "merged"
    assert seen == ["2 memories:\n- " + TEXTS[0] + "\n- " + TEXTS[1] + "\nSummary:"]

    blocks = RecordingChatModel(
        messages=iter([AIMessage(content=[{"type": "text", "text": "from blocks"}])])
    )
    assert summarizer_from(blocks)(TEXTS) == "from blocks"


def test_model_failure_raises_a_cogmem_error_and_keeps_the_texts() -> None:
    summarize = summarizer_from(BrokenChatModel(messages=iter([])))
    texts = list(TEXTS)
    with pytest.raises(SummarizerError, match="provider unavailable") as info:
        summarize(texts)
    assert isinstance(info.value, CogmemError)
    assert info.value.texts == tuple(TEXTS)
    assert isinstance(info.value.__cause__, ConnectionError)
    assert texts == TEXTS


@pytest.mark.parametrize("reply", ["   ", 42])
def test_empty_or_non_text_replies_are_failures(reply: Any) -> None:
    summarize = summarizer_from(RunnableLambda(lambda _: reply))
    with pytest.raises(SummarizerError, match="unchanged") as info:
        summarize(TEXTS)
    assert info.value.texts == tuple(TEXTS)


def test_bad_arguments() -> None:
    model = FakeListLLM(responses=["x"])
    summarize = summarizer_from(model)
    with pytest.raises(InvalidInputError, match="at least one"):
        summarize([])
    with pytest.raises(InvalidTypeError, match="list of texts"):
        summarize("one text")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match=r"texts\[1\]"):
        summarize(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="memories"):
        summarizer_from(model, "Summarize {text}")
    with pytest.raises(InvalidInputError, match="topic"):
        summarizer_from(model, "Summarize {memories} about {topic}")
    with pytest.raises(InvalidTypeError, match="prompt"):
        summarizer_from(model, 42)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="Runnable"):
        summarizer_from(lambda texts: "x")  # type: ignore[arg-type]
