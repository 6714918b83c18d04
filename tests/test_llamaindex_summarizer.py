"""summarizer_from: any LlamaIndex LLM (completion or chat) as cogmem's summarizer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    MessageRole,
)
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.mock import MockLLM
from llama_index.core.prompts import PromptTemplate
from pydantic import Field

from cogmem import CogmemError, InvalidInputError, InvalidTypeError
from llamaindex_cogmem import DEFAULT_SUMMARY_PROMPT, SummarizerError, summarizer_from

TEXTS = ["The user moved to Lisbon in May.", "The user now lives in Lisbon with a dog."]


class RecordingLLM(MockLLM):
    """A completion (or chat) LLM with a fixed reply that keeps what it was sent."""

    reply: str = "The user moved to Lisbon in May and lives there with a dog."
    prompts: list[str] = Field(default_factory=list)
    chats: list[list[ChatMessage]] = Field(default_factory=list)
    fail: bool = False

    def __init__(self, reply: str | None = None, fail: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if reply is not None:
            self.reply = reply
        self.fail = fail

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        if self.fail:
            raise RuntimeError("model offline")
        self.prompts.append(prompt)
        return CompletionResponse(text=self.reply)

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        if self.fail:
            raise RuntimeError("model offline")
        self.chats.append(list(messages))
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=self.reply))


def test_a_completion_model_gets_every_memory_and_its_reply_is_the_summary() -> None:
    llm = RecordingLLM()
    summarize = summarizer_from(llm)
    assert summarize(list(TEXTS)) == llm.reply
    [prompt] = llm.prompts
    assert (
        "- The user moved to Lisbon in May.\n- The user now lives in Lisbon with a dog." in prompt
    )
    assert "Memories (2):" in prompt
    assert "keeps every distinct fact" in prompt  # the default instructions
    assert not llm.chats


def test_a_chat_model_is_chatted_with_system_and_user_messages() -> None:
    llm = RecordingLLM(is_chat_model=True)
    assert summarizer_from(llm)(list(TEXTS)) == llm.reply
    [messages] = llm.chats
    assert [m.role for m in messages] == [MessageRole.SYSTEM, MessageRole.USER]
    assert messages[1].content == "Memories (2):\n- " + "\n- ".join(TEXTS)
    assert not llm.prompts


def test_mock_llm_echo_shows_the_whole_prompt() -> None:
    summary = summarizer_from(MockLLM())(list(TEXTS))
    for text in TEXTS:
        assert f"- {text}" in summary


def test_a_custom_prompt_string_or_template() -> None:
    llm = RecordingLLM()
    summarizer_from(llm, "Merge these {count} notes:\n{memories}\nMerged:")(list(TEXTS))
    assert llm.prompts[-1].startswith("Merge these 2 notes:\n- The user moved")
    summarizer_from(llm, PromptTemplate("Only {memories}"))(["one"])
    assert llm.prompts[-1] == "Only - one"
    with pytest.raises(InvalidInputError, match="memories"):
        summarizer_from(llm, "Summarize {notes}")
    with pytest.raises(InvalidInputError, match="also uses"):
        summarizer_from(llm, "{memories} for {user}")
    with pytest.raises(InvalidTypeError, match="prompt"):
        summarizer_from(llm, 42)  # type: ignore[arg-type]
    assert set(DEFAULT_SUMMARY_PROMPT.template_vars) == {"memories", "count"}


def test_failures_keep_the_texts_and_are_cogmem_errors() -> None:
    texts = list(TEXTS)
    with pytest.raises(SummarizerError, match="model offline") as caught:
        summarizer_from(RecordingLLM(fail=True))(texts)
    assert caught.value.texts == tuple(TEXTS)
    assert isinstance(caught.value, CogmemError)
    assert texts == TEXTS
    with pytest.raises(SummarizerError, match="no text"):
        summarizer_from(RecordingLLM(reply="  \n"))(texts)


def test_bad_input_is_refused() -> None:
    summarize = summarizer_from(RecordingLLM())
    with pytest.raises(InvalidInputError, match="at least one"):
        summarize([])
    with pytest.raises(InvalidTypeError, match="list of texts"):
        summarize("one text")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match=r"texts\[1\]"):
        summarize(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError, match="LlamaIndex LLM"):
        summarizer_from("gpt-4")  # type: ignore[arg-type]
