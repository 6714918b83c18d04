"""Facts about one named subject compete on what they say of it: design §3's subject focus.

A query that names someone finds every memory that names them close to it, since in a
sentence embedding the name weighs more than what is said of it: "Where does Tanvi work?" is
nearer "Tanvi lives in Newtown, in Sydney." (cosine 0.72) than "Tanvi Rao is a product
manager at Atlassian." (0.60). Among the query's best candidates, the name says nothing about
which of those that name it answers; the rest of their words do. So each of them is compared
with the query, both with the name said as "they" (:func:`masked`)::

    focus(m) = cos(embed(mask(query)), embed(mask(m)))

and the relevances of the group are given out again, the highest to the highest
``relevance(m) + 2 · focus(m)`` (:func:`refocused`): the group keeps its place among the other
candidates, and within it what is said of the subject decides. Versions of one fact are left
in their order: which of them comes first is the version logic's to say (design §3).

Every function here is pure but :func:`focus_cosines`, which embeds through the caller's
``cosines``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence, Set

__all__ = [
    "FOCUS_WEIGHT",
    "focus_cosines",
    "masked",
    "named_in_query",
    "naming",
    "refocused",
]

#: The weight of the focus cosine beside the relevance (both in [0, 1]) when the group's
#: relevances are given out again: a name-free cosine only a little higher does not undo a
#: clearly higher relevance ("Dr. Nakamura is my GP." / "Doctor Nakamura is my cardiologist."
#: differ by 0.02 in focus, 0.16 in relevance). Measured in design §3.
FOCUS_WEIGHT = 2.0

Cosines = Callable[[str, Sequence[str]], Sequence[float]]
"""``(text, others) -> cosine of text with each of others``, by the memory's embedder."""

_TOKEN = re.compile(r"[^\W\d_][\w'’-]*")
_POSSESSIVE = ("'s", "’s")
#: Words written with a capital that name no subject of their own: the speaker, and titles
#: that stand before a name ("Dr. Nakamura" is named by "Nakamura").
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'd", "I'll", "Dr", "Mr", "Mrs", "Ms", "Prof", "St"})


def named_in_query(query: str) -> tuple[str, ...]:
    """The names a query says, in order: its words written with a capital after the first
    word ("What is Beatriz's job?" -> ``("Beatriz",)``), less a possessive's "'s", the
    speaker's "I" and titles.

    >>> named_in_query("What is Beatriz's job?"), named_in_query("Is Dr. Nakamura in on Monday?")
    (('Beatriz',), ('Nakamura', 'Monday'))
    """
    words = [m.group() for m in _TOKEN.finditer(query)][1:]
    names: list[str] = []
    for word in words:
        for ending in _POSSESSIVE:
            word = word.removesuffix(ending)
        if word[:1].isupper() and word not in _NOT_NAMES and word not in names:
            names.append(word)
    return tuple(names)


def naming(name: str) -> re.Pattern[str]:
    """A pattern of ``name`` as a text says it: with a surname after it ("Tanvi Rao") and a
    possessive ("Beatriz's"), as a whole word, with its capital."""
    return re.compile(
        rf"(?<![\w'’]){re.escape(name)}(?:\s+[^\W\d_a-z][^\W\d_]*)?(?P<owner>['’]s)?(?![\w'’])"
    )


def masked(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with each naming of the subject said as "they" ("their" for a possessive).

    >>> masked("Beatriz Costa's cat is Lupo.", naming("Beatriz"))
    'their cat is Lupo.'
    """
    return pattern.sub(lambda m: "their" if m.group("owner") else "they", text)


def focus_cosines(query: str, texts: Mapping[str, str], cosines: Cosines) -> dict[str, float]:
    """The focus cosine of each of ``texts`` (id -> text: the query's best candidates) that
    names the query's subject, when at least two do (otherwise empty).

    The subject is the name of the query that the most of ``texts`` name (the first on a
    tie). Each of them is compared with the query, both with the name masked
    (:func:`masked`), by ``cosines``.
    """
    best: tuple[re.Pattern[str], list[str]] | None = None
    for name in named_in_query(query):
        pattern = naming(name)
        group = [i for i, text in texts.items() if pattern.search(text)]
        if len(group) >= 2 and (best is None or len(group) > len(best[1])):
            best = (pattern, group)
    if best is None:
        return {}
    pattern, group = best
    found = cosines(masked(query, pattern), [masked(texts[i], pattern) for i in group])
    return {i: float(c) for i, c in zip(group, found)}


def refocused(
    relevance: Mapping[str, float],
    focus: Mapping[str, float],
    unrelated: Set[tuple[str, str]],
) -> dict[str, float]:
    """``relevance`` with the group of ``focus`` given its own relevances again, the highest
    to the highest ``relevance + FOCUS_WEIGHT · focus``.

    Only the members read as other facts than every other member (each pair in
    ``unrelated``, either way round: :attr:`cogmem.versions.Evidence.unrelated`) are
    reordered; a version of another member keeps its relevance.

    >>> refocused({"a": 0.8, "b": 0.6, "c": 0.5}, {"a": 0.2, "b": 0.7}, {("a", "b")})
    {'a': 0.6, 'b': 0.8, 'c': 0.5}
    """
    members = [m for m in focus if m in relevance]
    apart = [
        m
        for m in members
        if all((m, n) in unrelated or (n, m) in unrelated for n in members if n != m)
    ]
    out = dict(relevance)
    if len(apart) < 2:
        return out
    order = sorted(apart, key=lambda m: (-(relevance[m] + FOCUS_WEIGHT * focus[m]), m))
    out.update(zip(order, sorted((relevance[m] for m in apart), reverse=True)))
    return out
