"""Whether two claims fill one slot: the same subject and attribute (:mod:`cogmem.versions`).

A slot is a subject and one of its attributes ("Ana" / where she lives; "the user" /
employer). Two claims fill one slot when they have

* one subject: the same person or name (a full name and a first name; a name in apposition,
  "my sister Ana" / "Ana"), or the same thing of one owner (one phrase within the other:
  "my dentist appointment" / "the dentist appointment"; or synonyms, :data:`SYNONYM_KIN`);
* one attribute: the same predicate whose complements or objects are of one kind (the same
  head word, both names, both numbers, or phrases at cosine ≥ :data:`COMPLEMENT_KIN`), and
  that do not name two things (:func:`other_things`); predicates the embedder places together
  (cosine ≥ :data:`PREDICATE_KIN`) or of one kind in a small table (home, job); or a place
  said with "is" and a move ("is on the 4th floor" / "relocated to ...").

A newer claim may also change an older one's value without filling its slot in these words:
a change verb or negation about the older value (:func:`changes_value`), an amount adjusted
(:func:`adjusts`), or a change by the owner to a value of the older value's kind
(:func:`changes_to_kind`). Nothing here reads the clock or a store; the similarity of short
phrases is asked of a :data:`~cogmem.phrases.PhraseSimilarity`.
"""

from __future__ import annotations

from .claims import BARE_CHANGES, PRONOUNS, TIME_WORDS, Claim
from .content_words import only_reworded, other_ways
from .people import RELATIVES, is_pronoun
from .phrases import PhraseSimilarity
from .statements import ADJUSTERS, CHANGE_VERBS
from .synonyms import opposite, same_sense
from .units import unit_name

__all__ = [
    "COMPLEMENT_KIN",
    "PREDICATE_KIN",
    "SYNONYM_KIN",
    "adjusts",
    "bare",
    "changes_to_kind",
    "changes_value",
    "light_for_another",
    "one_predicate",
    "one_verb",
    "opposed",
    "other_things",
    "owns",
    "same_slot",
    "same_subject",
    "subject_head",
    "synonymous",
    "two_doings",
    "value_phrase",
    "when_word",
]

#: Complements of "be" at or above this cosine are of one kind ("vegetarian"/"vegan").
COMPLEMENT_KIN = 0.45


#: Predicate phrases at or above this cosine name one attribute ("live in"/"move to").
PREDICATE_KIN = 0.6


#: Two names of one owner's thing at or above this cosine are synonyms ("lawyer"/"attorney";
#: not "dentist appointment"/"doctor appointment", 0.72).
SYNONYM_KIN = 0.8


_COPULAS = frozenset({"be", "become", "remain", "stay", "seem", "feel", "look"})
# Verbs that say little of their own ("have dinner", "go to bed", "turn 90"): what such a
# clause says is in its value.
_LIGHT = _COPULAS | {"have", "get", "do", "make", "go", "take", "turn", "keep"}


# Predicates that fill one attribute though the embedder places them apart ("I'm based in
# Austin" / "I live in Denver"; "I joined Meta" / "I work at Google").
_KIN = {
    **dict.fromkeys(("live", "reside", "base", "settle", "move", "relocate"), "home"),
    **dict.fromkeys(("work", "join", "employ", "hire"), "job"),
}


# Words that only say when, beside the names of times: "last week", "a while ago".
_WHEN_ELSE = frozenset({"last", "ago", "recently", "while", "lately", "earlier", "since"})


# The words that say whose a thing is ("my thyroid pill"), not what it is.
_OWNED_BY = frozenset({"my", "your", "his", "her", "our", "their", "its"})


_PREPOSITIONS = frozenset(
    {"in", "at", "on", "to", "for", "from", "with", "by", "as", "into", "near", "of"}
)


def _predicate_phrase(claim: Claim) -> str:
    """The predicate with the preposition that introduces its value ("live in", "move to")."""
    preps = [w for w in claim.value if w in _PREPOSITIONS]
    return f"{claim.predicate} {preps[0]}" if preps else claim.predicate


def _head(phrase: str) -> str:
    return phrase.rsplit(" ", 1)[-1] if phrase else ""


def _one_kind(old: Claim, new: Claim, similar: PhraseSimilarity) -> bool:
    """Whether the complements or objects of two claims with one predicate fill one attribute
    ("a nurse" / "a doctor"; not "vegetarian" / "a nurse", "celiac disease" / "two guinea
    pigs"). Where only one has a complement, the other's value must be a number after a
    preposition, and the complement a number or a date ("is booked for 2 June" / "is 9 June";
    not "in Paris" / "Maria", "note 3" / "note 2", nor "on vacation in July" / "a Formula 1
    fan"). A length of time is no date: "a software engineer for 9 years" / "on call one week
    in every 6" are two attributes."""
    if not old.complement or not new.complement:  # "is for 06.02" / "is 06.09": two dates
        if old.complement or new.complement:
            full, bare = (old, new) if old.complement else (new, old)
            kinds = {old.complement_kind or old.value_kind, new.complement_kind or new.value_kind}
            head = _head(full.complement)
            return (
                kinds == {"number"}
                and when_word(head)
                and unit_name(head) is None  # "9 year" counts time: a length, not a date
                and any(w in _PREPOSITIONS for w in bare.value)
            )
        return True
    if other_things(old, new):
        return False
    if _head(old.complement) == _head(new.complement):
        return True
    if old.complement_kind == new.complement_kind and old.complement_kind in ("name", "number"):
        return True
    return similar(old.complement, new.complement) >= COMPLEMENT_KIN


def other_things(old: Claim, new: Claim) -> bool:
    """Whether the objects of one verb name two things, as what else the clauses say shows:
    the same number ("a size 9 shoe" / "a size 9 ring"), or each its own time ("my thyroid
    pill at 6am" / "my vitamin D at 6pm"): the number or time is then what is said of each
    thing, not a value the other changes. Objects that differ only in a number or a unit
    ("7 pounds" / "7 kilograms"), or where one names more of the same thing ("my pill" / "my
    thyroid pill"), are one thing."""
    if old.predicate in _COPULAS or new.predicate in _COPULAS:
        return False
    a, b = old.complement.split(), new.complement.split()
    words_a = {w for w in a if not when_word(w)} - _OWNED_BY
    words_b = {w for w in b if not when_word(w)} - _OWNED_BY
    ours, theirs = words_a - words_b, words_b - words_a
    if not (ours and theirs) or all(unit_name(w) for w in ours | theirs):
        return False  # "weighs 7 pounds" / "weighs 7 kilograms": one thing, another amount
    numbers_a = {w for w in a if when_word(w)}
    if numbers_a and numbers_a == {w for w in b if when_word(w)}:
        return True
    times_a = {r for r in old.roles if when_word(r.split(" ", 1)[-1])}
    times_b = {r for r in new.roles if when_word(r.split(" ", 1)[-1])}
    return bool(times_a and times_b and times_a != times_b)


def same_subject(old: Claim, new: Claim) -> bool:
    """Whether two claims are about one subject: the same person or name, or the same thing
    of one owner ("my dentist appointment" / "the dentist appointment"; "the wifi password at
    home" / "the home wifi password"), one naming it with more words than the other, and
    and with a word after a preposition in both, the same preposition ("my flight to Rome" /
    "my flight back from Rome" are two)."""
    if is_pronoun(old) or is_pronoun(new):
        return False  # "it", "she": who or what is not known here
    if old.subject == new.subject:
        return True
    if old.person and new.person:  # a full name and a first name: "Ana Silva" / "Ana"
        names_a, names_b = set(old.subject.split()), set(new.subject.split())
        if names_a & PRONOUNS or names_b & PRONOUNS:
            return False
        return names_a <= names_b or names_b <= names_a
    if old.person or new.person:
        person, other = (old, new) if old.person else (new, old)
        words, others = person.subject.split(), other.subject.split()
        if other.owner:  # "my sister Ana" / "Ana": a name in apposition is the person
            return len(others) > len(words) and others[-len(words) :] == words
        # a first name the small model tagged a common noun ("Greta drives a Volvo.")
        return len(words) > 1 and other.subject in words[:1]
    if old.owner and new.owner and not _one_owner(old.owner, new.owner):
        return False
    if other_ways(old.subject.split(), new.subject.split(), _PREPOSITIONS):
        return False  # "my flight to Rome" / "my flight back from Rome": two flights
    a, b = old.thing, new.thing
    return bool(a) and bool(b) and (a <= b or b <= a)


def subject_head(claim: Claim) -> str:
    """The word a subject names its thing by: its last word before a preposition
    ("thermostat" of "upstairs thermostat", "password" of "wifi password at home"; English
    compounds end in their head); the words before it say which one ("" for no subject)."""
    words = claim.subject.split()
    for i, w in enumerate(words):
        if w in _PREPOSITIONS and i:
            return words[i - 1]
    return words[-1] if words else ""


def _one_owner(a: str, b: str) -> bool:
    """Whether two owners are one: the same, or the user's relative named with and without
    "my" ("parent" / "user parent": "Parents' anniversary: 8 July." is the speaker's)."""
    short, long = sorted((a, b), key=len)
    return a == b or (long == f"user {short}" and set(short.split()) <= RELATIVES)


def bare(claim: Claim) -> bool:
    """A change that names no attribute: no slot can be read from it."""
    return claim.predicate in BARE_CHANGES and not claim.complement


def same_slot(old: Claim, new: Claim, similar: PhraseSimilarity) -> bool:
    if not _one_subject(old, new, similar) or bare(old) or bare(new):
        return False
    if {old.predicate, new.predicate} <= _COPULAS and _part_of(old, new):
        return False  # "the allotment is plot 17" / "the allotment rent is £48": two things
    if old.predicate == new.predicate or {old.predicate, new.predicate} <= _COPULAS:
        return _one_kind(old, new, similar)
    if _located(old) and _KIN.get(new.predicate) == "home":
        return True  # "Our office is on the 4th floor." / "The office relocated to ..."
    if old.predicate in _COPULAS or new.predicate in _COPULAS:
        return False
    if _KIN.get(old.predicate, old.predicate) == _KIN.get(new.predicate, new.predicate):
        return True
    if old.predicate.split()[0] == new.predicate.split()[0]:
        return False  # "take" / "take up": a particle makes another verb, however alike
    return similar(_predicate_phrase(old), _predicate_phrase(new)) >= PREDICATE_KIN


def _part_of(old: Claim, new: Claim) -> bool:
    """Whether one subject names a thing of the other by more words with another head ("the
    allotment" / "the allotment rent"), each given a value of its own: more than a date or
    time alone, and not one measure of one amount."""
    a, b = old.thing, new.thing
    if not a or not b or a == b or not (a <= b or b <= a):
        return False
    short, long = (old, new) if a <= b else (new, old)
    return (
        subject_head(short) != subject_head(long)
        and subject_head(short) not in long.modifiers  # "my favorite" / "my favorite cuisine"
        and not (_only_when(old) and _only_when(new))
        and not _one_measure(old, new)
    )


def _one_measure(old: Claim, new: Claim) -> bool:
    """Whether two values share a word besides numbers and prepositions ("2,400 a month" /
    "2,200 a month", "11 hours" / "12 hours 35 minutes"): one amount of one thing, however
    each subject names it ("the mortgage" / "the mortgage payment")."""
    shared = set(old.value) & set(new.value) - _PREPOSITIONS
    return any(not any(ch.isdigit() for ch in w) for w in shared)


def _only_when(claim: Claim) -> bool:
    """Whether a claim's value is a date or time alone ("for the 22nd"): a thing and what it
    is booked as ("the anniversary dinner" / "the anniversary dinner reservation") share it."""
    words = [w for w in claim.value if w not in _PREPOSITIONS]
    return bool(words) and all(when_word(w) for w in words)


def opposed(old: Claim, new: Claim) -> bool:
    """Whether two claims' verbs are opposites (:func:`cogmem.synonyms.opposite`: "buy" /
    "sell", "start" / "end", "open" / "close"), which the embedder places as close as one
    attribute's verbs: said of one value, they never say the same thing twice."""
    first, second = old.predicate.split()[0], new.predicate.split()[0]
    return first != second and opposite(first, second)


def _located(claim: Claim) -> bool:
    """Whether a claim says where its subject is: "is" with a place and nothing else ("is on
    the 4th floor", "is in Lyon"; not "is hard of hearing in his left ear")."""
    return (
        claim.predicate in _COPULAS
        and not claim.complement
        and any(role.split(" ", 1)[0] in _PLACE_PREPOSITIONS for role in claim.roles)
    )


_PLACE_PREPOSITIONS = frozenset({"in", "at", "on", "near", "by", "inside"})


def one_predicate(old: Claim, new: Claim, similar: PhraseSimilarity) -> bool:
    """One subject and one predicate (two copulas are one): where the same value says the
    same thing, whatever else the clauses hold ("is June 21" / "is on 21/06")."""
    return one_verb(old, new) and _one_subject(old, new, similar)


def one_verb(old: Claim, new: Claim) -> bool:
    """The same predicate, two copulas being one ("is" / "remains")."""
    return old.predicate == new.predicate or {old.predicate, new.predicate} <= _COPULAS


def _one_subject(old: Claim, new: Claim, similar: PhraseSimilarity) -> bool:
    """:func:`same_subject`, or one thing of one owner named otherwise: a misspelling or
    WordNet's first-sense synonym (:func:`cogmem.content_words.only_reworded`: "my favrite
    bar" / "my favorite bar"), or words at cosine ≥ ``SYNONYM_KIN`` ("my lawyer" / "my
    attorney"); never two relatives, nor by cosine words before one head (:func:`subject_head`:
    "the savings account" / "the current account") or words the parser read as adjectives or
    adverbs, whose antonyms sit as close ("the upstairs thermostat" / "the downstairs
    thermostat"), and not "the living room TV" / "the bedroom TV", whose other words tell two
    things apart."""
    if same_subject(old, new):
        return True
    if is_pronoun(old) or is_pronoun(new) or old.person or new.person or old.owner != new.owner:
        return False
    a, b = old.thing - new.thing, new.thing - old.thing  # the words that differ
    if not a or not b or a & RELATIVES or b & RELATIVES:
        return False
    if not all(w.isalpha() for w in a | b):
        return False  # "tok00300" / "tok00785": codes, not words with synonyms
    if only_reworded(a, b):
        return True  # "my favrite bar" / "my favorite bar"; "my sofa" / "my couch"
    if subject_head(old) == subject_head(new):
        return False  # one head, other words before it say which: "savings" / "current account"
    if a & old.modifiers or b & new.modifiers:
        return False  # by cosine never adjectives or adverbs: "upstairs" / "downstairs" 0.84
    return similar(" ".join(sorted(a)), " ".join(sorted(b))) >= SYNONYM_KIN


def two_doings(old: Claim, new: Claim) -> bool:
    """Whether two claims about one subject say it does two things, whatever else they
    share: one verb with a word of each value the other lacks ("Marcus plays tennis on
    Saturdays." / "... chess on Saturdays."), two verbs that say something of their own and
    are not WordNet's first-sense synonyms ("Walter runs 5 km every morning." / "... swims 5
    km every morning."), or light
    verbs with values that share no word besides numbers and time words ("The kids go to bed
    at 8pm." / "The kids have dinner at 8pm."). The same names and numbers, at any cosine,
    do not make them one fact."""
    if not same_subject(old, new):
        return False
    ours = {w for w in old.content if not when_word(w)}
    theirs = {w for w in new.content if not when_word(w)}
    if old.predicate == new.predicate:  # "plays tennis" / "plays chess" on Saturdays
        return bool(ours - theirs and theirs - ours)
    verbs = old.predicate.split()[0], new.predicate.split()[0]
    if not set(verbs) & _LIGHT:
        return verbs[0] != verbs[1] and not same_sense(*verbs)
    if not set(verbs) <= _LIGHT:
        return False
    return bool(ours and theirs) and not ours & theirs


def light_for_another(old: Claim, new: Claim, similar: PhraseSimilarity) -> bool:
    """Whether two claims about one subject say it does two things with one thing (a word
    of their values in common, not a number or time word) by a light verb and another that
    the embedder does not place with it (predicate phrases at cosine below
    ``PREDICATE_KIN``): "I teach a pottery class" / "I take a pottery class" (0.30), where
    :func:`two_doings` leaves a light verb to the words of the values. A light verb that
    stands for the other may still be one doing ("buy" / "get" 0.57 is not told apart
    here either way: below the bar, it is two); one whose value holds the other verb is one
    ("I do my best work" / "I work best")."""
    verbs = old.predicate.split()[0], new.predicate.split()[0]
    if verbs[0] == verbs[1] or len(set(verbs) & _LIGHT) != 1 or not same_subject(old, new):
        return False
    if set(verbs) & _COPULAS:
        return False
    if not any(not when_word(w) for w in old.content & new.content):
        return False  # not one thing done two ways: other things, left to the values
    light, heavy = (old, new) if verbs[0] in _LIGHT else (new, old)
    if heavy.predicate.split()[0] in light.value:
        return False  # a light verb construction: "I do my best work" / "I work best"
    return similar(_predicate_phrase(old), _predicate_phrase(new)) < PREDICATE_KIN


def synonymous(old: Claim, new: Claim, similar: PhraseSimilarity) -> bool:
    """Whether the values of two claims differ in one word each, and the two say one thing:
    words of one first sense in WordNet (:func:`cogmem.synonyms.same_sense`: "scared" /
    "afraid", "myopic" / "nearsighted"), or nouns that name one thing (cosine ≥
    ``SYNONYM_KIN``, as for the names of one subject: "a physician" / "a doctor"). By cosine
    never adjectives or adverbs, whose antonyms sit as close ("older" / "younger" 0.86,
    "upstairs" / "downstairs" 0.84), nor a relative ("wife" / "husband" 0.86); never a number
    or a time word."""
    ours, theirs = old.content - new.content, new.content - old.content
    if len(ours) != 1 or len(theirs) != 1:
        return False
    (a,), (b,) = ours, theirs
    if not (a.isalpha() and b.isalpha()) or when_word(a) or when_word(b):
        return False
    if same_sense(a, b):
        return True
    if a not in old.nouns or b not in new.nouns or {a, b} & RELATIVES:
        return False
    return similar(a, b) >= SYNONYM_KIN


def changes_value(old: Claim, new: Claim) -> bool:
    """ "I left Google" for "I work at Google": a change verb or a negation, about a content
    word of the older value (not a preposition)."""
    if not same_subject(old, new) or not (new.negated or new.predicate in CHANGE_VERBS):
        return False
    shared = old.content & new.content - _leading(old) - _leading(new)
    return any(not when_word(w) for w in shared)


def _leading(claim: Claim) -> set[str]:
    """The prepositions that lead the claim's roles ("after" of "after lunch"): shared by
    unrelated values ("meditate after lunch" / "not check email after 7pm")."""
    return {role.split(" ", 1)[0] for role in claim.roles}


def adjusts(old: Claim, new: Claim) -> bool:
    """ "The rent rose by $150" (read from "Landlord raised the rent by $150") for "My rent is
    $1,850 a month": an amount or date of the older subject adjusted, whoever did it."""
    return new.predicate in ADJUSTERS and not new.person and same_subject(old, new)


def changes_to_kind(old: Claim, new: Claim, similar: PhraseSimilarity) -> bool:
    """ "Rina switched to 555-0110" for "Rina's phone number is 555-0199": a change said of the
    owner of the older claim's subject (or of that subject), to a value of the older value's
    kind (both numbers, or phrases at cosine ≥ ``COMPLEMENT_KIN``: "Elixir" for "Rust", not
    "a cappuccino"). A change that names its own attribute changes only that one: "Ezra moved
    here from Rotterdam" is where Ezra lives, not a change of his kids' names."""
    if not (new.predicate.split()[0] in CHANGE_VERBS or new.negated) or not old.complement:
        return False
    if not same_subject(old, new) and (
        not old.owner or old.owner.split()[0] != new.subject or new.predicate in _KIN
    ):
        return False
    value = value_phrase(new)
    if not value:
        return False
    if old.complement_kind in ("number", "name"):
        return new.value_kind == old.complement_kind
    return similar(old.complement, value) >= COMPLEMENT_KIN


def when_word(word: str) -> bool:
    """A number or a time word: shared by unrelated claims ("graduated in 2012" / "married in
    2012"), so it never ties two claims together alone."""
    return any(ch.isdigit() for ch in word) or word in TIME_WORDS


def value_phrase(claim: Claim) -> str:
    """A claim's value without its prepositions and the words that place it in time
    ("dune" for "moved on to Dune"; "fastmail" for "switched to fastmail last week")."""
    return " ".join(
        w for w in claim.value if w not in _PREPOSITIONS and w not in TIME_WORDS | _WHEN_ELSE
    )


def owns(a: Claim, b: Claim) -> bool:
    """Whether ``a``'s subject owns ``b``'s ("Ana Silva" / "Ana's birthday"; "I" / "my
    car"). A relative is a person of their own, not something owned: "Priya's sister Nadia"
    is not Priya, nor "my sister" the user."""
    if not b.owner or is_pronoun(a) or b.thing & RELATIVES:
        return False
    if a.subject == b.owner:
        return True
    if a.owner and a.subject.endswith(" " + b.owner):  # "my sister Marisol" / "Marisol's"
        return True
    return a.person and set(b.owner.split()) <= set(a.subject.split())
