"""Facts about one named subject are ordered by what they say of it (cogmem.focus): the name,
which weighs more in an embedding than what is said of it, is masked in the query and in the
memories that name it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig
from cogmem.embedding import MiniLMEmbedder
from cogmem.focus import focus_cosines, masked, named_in_query, naming, refocused
from cogmem.phrases import Phrases

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def _at(days: float) -> datetime:
    return NOW - timedelta(days=days)


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("Where does Tanvi work?", ("Tanvi",)),
        ("What is Beatriz's job?", ("Beatriz",)),
        ("Is Dr. Nakamura my GP?", ("Nakamura", "GP")),
        ("Where do I live?", ()),
        ("Tanvi works where?", ()),  # the first word is capitalised whatever it is
        ("When does Zoë fly to Lyon?", ("Zoë", "Lyon")),
    ],
)
def test_a_query_names_its_words_written_with_a_capital(query: str, names: tuple[str]) -> None:
    assert named_in_query(query) == names


def test_a_name_is_masked_with_its_surname_and_possessive_not_inside_other_words() -> None:
    pattern = naming("Ana")
    assert masked("Ana Sousa lives in Porto; Ana's dog is Rui.", pattern) == (
        "they lives in Porto; their dog is Rui."
    )
    assert masked("Anabel and ana met in Havana.", pattern) == "Anabel and ana met in Havana."


def test_the_subject_is_the_name_most_of_the_candidates_say() -> None:
    texts = {
        "a": "Tanvi lives in Sydney.",
        "b": "Tanvi Rao works at Atlassian.",
        "c": "Sydney is rainy in June.",
    }
    asked: list[tuple[str, tuple[str, ...]]] = []

    def cosines(text: str, others: Sequence[str]) -> list[float]:
        asked.append((text, tuple(others)))
        return [0.5] * len(others)

    assert focus_cosines("Does Tanvi like Sydney?", texts, cosines) == {"a": 0.5, "b": 0.5}
    assert asked == [
        ("Does they like Sydney?", ("they lives in Sydney.", "they works at Atlassian."))
    ]
    assert focus_cosines("Where does Omar live?", texts, cosines) == {}  # no one named twice
    assert focus_cosines("Where is Atlassian?", texts, cosines) == {}  # named once only


def test_only_other_facts_are_reordered_and_they_keep_their_relevances() -> None:
    """ "home2" is a version of "home" (their pair is not unrelated): both keep their own
    relevance, and the two others trade theirs by relevance + focus."""
    relevance = {"job": 0.6, "home": 0.8, "food": 0.7, "home2": 0.75, "filler": 0.9}
    focus = {"job": 0.9, "home": 0.2, "food": 0.3, "home2": 0.25}
    unrelated = {("job", "home"), ("job", "food"), ("home", "food"), ("food", "home2")}
    unrelated.add(("home2", "job"))  # either way round
    out = refocused(relevance, focus, unrelated)
    assert out == {"job": 0.7, "home": 0.8, "food": 0.6, "home2": 0.75, "filler": 0.9}
    assert refocused(relevance, {"job": 0.9}, set()) == relevance


def test_a_slightly_better_focus_does_not_undo_a_clearly_better_relevance() -> None:
    out = refocused({"gp": 0.87, "cardio": 0.71}, {"gp": 0.65, "cardio": 0.67}, {("gp", "cardio")})
    assert out == {"gp": 0.87, "cardio": 0.71}


OSKAR = [
    ("Oskar Lindqvist is a structural engineer.", 100),
    ("Oskar lives in Malmö, near the harbour.", 80),
    ("Oskar is allergic to peanuts.", 60),
    ("Oskar plays the cello in an amateur orchestra.", 40),
    ("Oskar drives an old Volvo estate.", 20),
    ("Oskar's birthday is on the 4th of March.", 1),
]
QUESTIONS = [
    ("What is Oskar's job?", "Oskar Lindqvist is a structural engineer."),
    ("Where does Oskar live?", "Oskar lives in Malmö, near the harbour."),
    ("What can't Oskar eat?", "Oskar is allergic to peanuts."),
    ("Which instrument does Oskar play?", "Oskar plays the cello in an amateur orchestra."),
    ("What car does Oskar have?", "Oskar drives an old Volvo estate."),
    ("When is Oskar's birthday?", "Oskar's birthday is on the 4th of March."),
]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def _firsts(embedder: MiniLMEmbedder, config: CognitiveMemoryConfig) -> dict[str, str]:
    with CognitiveMemory(embedder=embedder, config=config) as mem:
        for text, days in OSKAR:
            mem.write(text, memory_type="semantic", created_at=_at(days), now=_at(days))
        return {q: mem.search(q, now=NOW, reinforce=False)[0].text for q, _ in QUESTIONS}


def test_six_facts_about_one_person_each_answer_their_own_question(
    embedder: MiniLMEmbedder,
) -> None:
    """With the real model, "What is Oskar's job?" is nearer other facts of Oskar than the
    engineer (cosine 0.58, the name weighing most): without the focus, another came first."""
    firsts = _firsts(embedder, CognitiveMemoryConfig())
    assert firsts == dict(QUESTIONS)
    unfocused = _firsts(embedder, CognitiveMemoryConfig(subject_focus=False))
    assert unfocused != dict(QUESTIONS)


def test_the_explanation_gives_the_focus(embedder: MiniLMEmbedder) -> None:
    with CognitiveMemory(embedder=embedder) as mem:
        for text, days in OSKAR[:3]:
            mem.write(text, memory_type="semantic", created_at=_at(days), now=_at(days))
        found = mem.search("What is Oskar's job?", now=NOW, reinforce=False)
    named = [r for r in found if "Oskar" in r.text]
    assert all(r.explanation.focus is not None for r in named)
    assert f"focus {named[0].explanation.focus:.3f}" in str(named[0].explanation)
    assert named[0].explanation.as_dict()["focus"] == named[0].explanation.focus


def test_lines_said_by_a_named_speaker_are_not_focused(embedder: MiniLMEmbedder) -> None:
    """ "Mira: ..." names who spoke, not what the line is about: masking it would read every
    turn of hers as about her."""
    turns = [
        ("Mira: I started a pottery class on Tuesdays.", 30),
        ("Mira: My brother Tomas moved to Lisbon.", 20),
        ("Mira lives in Porto with two cats.", 10),
        ("Mira works as a nurse in Porto.", 5),
    ]
    with CognitiveMemory(embedder=embedder) as mem:
        for text, days in turns:
            mem.write(text, created_at=_at(days), now=_at(days))
        found = mem.search("What does Mira do on Tuesdays?", now=NOW, reinforce=False)
    focused = {r.text for r in found if r.explanation.focus is not None}
    assert focused == {"Mira lives in Porto with two cats.", "Mira works as a nurse in Porto."}


def test_phrases_said_twice_each_get_their_cosine() -> None:
    """Two members of a group may mask to one text ("Ana's dog is Rui." / "Ana Sousa's dog is
    Rui."), or to the masked query itself: the cosines were looked up by a list shorter than
    the phrases asked: a phrase took another's vector, or the search raised KeyError."""
    vectors = {"q": [1.0, 0.0], "a": [0.0, 1.0], "b": [1.0, 0.0]}
    phrases = Phrases(lambda texts: np.array([vectors[t] for t in texts]))
    assert phrases.cosines("q", ["a", "a", "b", "q"]) == [0.0, 0.0, 1.0, 1.0]
