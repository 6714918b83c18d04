"""Clauses of a parsed line, and who each is about.

The small English parser (:mod:`cogmem.parser`) misreads some chat in ways that are regular; the
repairs are here, each with its example, so that :mod:`cogmem.statements` reads claims from a
clause and its subject without knowing how they were found:

* a sentence with no subject and a past-tense verb is the speaker's ("Switched to a Pixel 8.");
* a subjectless "is" takes the noun phrase just before it ("Farah told me their meeting tool
  is Jitsi.", "the team lead is Kenji");
* a possessive hung on the wrong word still owns the phrase ("Farah's team lead");
* a cleft says its clause of the thing it puts first ("Lyon is where my godmother lives.",
  "Peanuts are something I can't eat.", "What I drive is a Subaru.": :func:`clefts`);
* a verb in the third person read as a plural noun, with its subject as a compound before
  it, is mended in the parse itself ("The user volunteers at the food bank.", "My sister's
  flight lands at Heathrow.": :func:`mend_verbs_read_as_nouns`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .canonical import us_spelling, weekday

__all__ = [
    "FAMILY_WORDS",
    "FIRST_PERSON",
    "OTHER_POSSESSIVES",
    "SUBJECTS",
    "VERSION_WORDS",
    "appositive_name",
    "clauses",
    "clefts",
    "day_name",
    "is_question",
    "mend_verbs_read_as_nouns",
    "owned_by_pronoun",
    "phrase",
    "subject_phrase",
    "word",
]

FIRST_PERSON = frozenset({"i", "me", "myself", "we", "us", "ourselves", "my", "our", "mine"})
SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj"})
#: Words that say a version is newer or older, not which thing it is ("my new phone number").
VERSION_WORDS = frozenset(
    {
        "new", "current", "updated", "latest", "actual", "real", "correct", "present", "old",
        "previous", "former", "recent", "now", "newest", "revised", "final",
    }
)  # fmt: skip
OTHER_POSSESSIVES = frozenset({"his", "her", "their", "its", "your"})


def word(token: Any) -> str:
    """A token as canonical text: its lemma, lowercased, in US spelling (numbers as written;
    a capitalised "plural" that is the subject of a singular verb as written: a name, "Ines
    is", "James lives"; so is a capitalised subject read as a verb's -ing form, "Dumpling
    was"), a family word in one form ("mum", "mom", "mommy" -> "mother"), a day of the week
    written with a capital by its full name ("Weds", "Sat" -> "wednesday", "saturday")."""
    if token.like_num or any(ch.isdigit() for ch in token.text):
        return str(token.text.lower())
    if token.text[:1].isupper() and (day := day_name(token)) != token.text:
        return day  # "Weds", "Tuesdays", "Sat": one name
    if token.lower_ in FAMILY_WORDS:  # the small model lemmatizes "lives" after "mum" as "life"
        return FAMILY_WORDS[token.lower_]
    if token.tag_ in ("NNS", "NNPS") and token.text[:1].isupper() and _of_singular_verb(token):
        return str(token.lower_)
    if token.tag_ == "VBG" and token.text[:1].isupper() and token.dep_ in SUBJECTS:
        return str(token.lower_)  # a name read as a verb: "Dumpling was neutered", not "dumple"
    lemma = token.lemma_.lower() if token.lemma_ else token.lower_
    return FAMILY_WORDS.get(lemma, us_spelling(lemma))


def day_name(token: Any) -> str:
    """A token written with a capital as the full name of the day of the week it names, else
    as written (:func:`cogmem.canonical.weekday`; "Sat" and "Sun" mid-sentence only: "Sun is
    out" is no Sunday)."""
    return weekday(token.text, capitalised=not token.is_sent_start)


def _of_singular_verb(token: Any) -> bool:
    """Whether ``token`` is the subject of a verb in the third person singular ("is",
    "lives", "has moved")."""
    if token.dep_ not in SUBJECTS:
        return False
    verb = token.head
    return verb.tag_ == "VBZ" or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ == "VBZ" for c in verb.children
    )


#: Family words in one form: the everyday and the British word for one relative are one
#: person ("my mum" / "my mother" / "mom").
FAMILY_WORDS = {
    **dict.fromkeys(("mum", "mom", "mommy", "mummy", "mama", "momma", "mam"), "mother"),
    **dict.fromkeys(("dad", "daddy", "papa", "pop"), "father"),
    **dict.fromkeys(("moms", "mums"), "mother"),
    **dict.fromkeys(("dads",), "father"),
    **dict.fromkeys(("grandma", "granny", "gran", "nana", "nan", "grandmom"), "grandmother"),
    **dict.fromkeys(("grandpa", "grandad", "granddad", "gramps", "grandpop"), "grandfather"),
    **dict.fromkeys(("hubby",), "husband"),
    **dict.fromkeys(("bro",), "brother"),
    **dict.fromkeys(("sis",), "sister"),
}


def _in_subtree_of(token: Any, deps: frozenset[str], stop: Any) -> bool:
    """Whether ``token`` hangs below a dependent labelled one of ``deps``, up to ``stop``."""
    node = token
    while node.i != stop.i and node.head.i != node.i:
        if node.dep_ in deps:
            return True
        node = node.head
    return False


def phrase(tokens: Iterable[Any], head: Any, speaker: str) -> list[str]:
    """Canonical words of a noun phrase's tokens (determiners, punctuation, "'s", relative
    clauses, appositions and version words left out; my/our as the speaker). A name in
    apposition to the head is kept: it says who ("my colleague Maria")."""
    words: list[str] = []
    named = {t.i for c in head.children if appositive_name(c) for t in c.subtree}
    for token in tokens:
        if token.dep_ in ("det", "punct", "case", "predet") or token.is_space:
            continue
        if (
            token.i != head.i
            and token.i not in named
            and _in_subtree_of(token, frozenset({"relcl", "acl", "appos"}), head)
        ):
            continue
        if token.dep_ == "amod" and token.lower_ in VERSION_WORDS:
            continue
        words.append(speaker if token.lower_ in FIRST_PERSON else word(token))
    return words


def appositive_name(token: Any) -> bool:
    """ "Maria" in "my colleague Maria": a capitalised name in apposition (whatever the small
    model tags it: "Raj" of "My coworker Raj" is an adverb to it)."""
    return bool(token.dep_ == "appos" and token.pos_ != "PRON" and token.text[:1].isupper())


def subject_phrase(
    head: Any, speaker: str, leave: frozenset[int] = frozenset()
) -> tuple[str, str, bool]:
    """The canonical subject of a clause whose subject token is ``head``, its owner ("user
    wife" in "my wife's cousin"), and whether it names a person or thing as itself; the tokens
    at positions ``leave`` are not part of it."""
    lower = head.lower_
    if lower in FIRST_PERSON:
        return speaker, "", True
    # "My uncle Teodor's birthday is ...", parsed as "uncle" with "Teodor's birthday" beside
    # it: what is said is of the birthday (but "Greta, my friend from college, lives ...": of
    # Greta, a name)
    owned = next((c for c in head.children if c.dep_ == "appos" and c.i > head.i), None)
    named = head.pos_ == "PROPN" and head.text[:1].isupper()
    if owned is not None and not named and any(g.dep_ == "poss" for g in owned.children):
        return subject_phrase(owned, speaker, leave)
    if head.pos_ == "PRON":
        return lower, "", True
    # an owner named by a pronoun ("their car") is unresolved: the phrase is read without it
    possessives = _possessives(head)
    owners = [c for c in possessives if c.lower_ not in OTHER_POSSESSIVES]
    pronoun_owned = {t.i for c in possessives if c.lower_ in OTHER_POSSESSIVES for t in c.subtree}
    owned = {t.i for c in owners for t in c.subtree} | pronoun_owned | leave
    if head.pos_ == "PROPN":  # "Lucía and her partner relocated": Lucía relocated
        owned |= {t.i for c in head.children if c.dep_ in ("conj", "cc") for t in c.subtree}
    owner = " ".join(w for c in owners for w in phrase(c.subtree, c, speaker))
    rest = phrase((t for t in head.subtree if t.i not in owned), head, speaker)
    named = " ".join([owner, *rest]).strip() or word(head)
    if named == "user":
        return speaker, "", True
    # a name written as one: the small model tags some lowercase chat nouns as names
    return named, owner, head.pos_ == "PROPN" and not owners and head.text[:1].isupper()


def owned_by_pronoun(head: Any) -> bool:
    """Whether the phrase of ``head`` is owned by a third person named by a pronoun ("his
    name", "their car"): someone's, read without its owner by :func:`subject_phrase`."""
    return any(c.lower_ in _THIRD_PERSON_POSSESSIVES for c in _possessives(head))


_THIRD_PERSON_POSSESSIVES = OTHER_POSSESSIVES - {"your"}


def _possessives(head: Any) -> list[Any]:
    """The possessives before ``head`` in its phrase: its own ("Farah's lead"), or one a
    misparse hung on a word before it ("Farah's team lead", parsed with "team" as the subject
    of "lead"); never one after it ("the password at my home")."""
    found = []
    for token in head.subtree:
        if token.dep_ != "poss" or token.i >= head.i:
            continue
        up, nested = token.head, False
        while up.i != head.i and up.i < head.i:
            nested = nested or up.dep_ == "poss"  # "my" in "my wife's": part of an owner
            up = up.head
        if up.i == head.i and not nested:
            found.append(token)
    return found


def clauses(doc: Any) -> Iterable[tuple[Any, Any | None]]:
    """Each clause head of ``doc`` with its subject token (a conjoined verb shares its
    head's subject: "I left Google and joined Meta"); ``None`` for the speaker left out
    (:func:`_said_by_speaker`)."""
    subject_of: dict[int, Any | None] = {}
    for token in doc:
        subjects = [c for c in token.children if c.dep_ in SUBJECTS]
        if subjects:
            subject_of[token.i] = subjects[0]
    for token in doc:
        if token.i in subject_of:
            continue
        if _said_by_speaker(token):
            subject_of[token.i] = None
        elif (lost := _lost_subject(token)) is not None:
            subject_of[token.i] = lost
    for token in doc:
        if _conditional(token):
            continue
        if token.i in subject_of:
            yield token, subject_of[token.i]
        elif token.dep_ == "conj" and token.pos_ in ("VERB", "AUX"):
            head = token.head
            while head.i not in subject_of and head.dep_ == "conj" and head.head.i != head.i:
                head = head.head
            if head.i in subject_of:
                yield token, subject_of[head.i]


def _conditional(token: Any) -> bool:
    """A clause that says under what condition ("if I run downhill", "unless it rains"): not
    how things are."""
    return token.dep_ == "advcl" and any(
        c.dep_ == "mark" and c.lower_ in ("if", "unless") for c in token.children
    )


def mend_verbs_read_as_nouns(doc: Any) -> None:
    """Mend, in ``doc``, each verb in the third person that the small parser read as a plural
    noun heading the sentence, with its subject as a compound just before it: "The user
    volunteers at the food bank.", "My aunt flies for United.", "Clementine spooks at plastic
    bags." (the words are ambiguous, the parse regular). Such a head, with no subject of its
    own and something after it a verb takes (a preposition, an object, an adverb), is tagged
    a verb; the compound becomes its subject, and the words before the compound that hung on
    the head (the article, "my", "my sister's") become the subject's. A noun phrase with
    nothing after it ("Gym days.") is left as it is."""
    for head in doc:
        if head.dep_ != "ROOT" or head.tag_ not in ("NNS", "VBZ") or head.i == head.sent.start:
            continue
        if not head.lower_.endswith("s") or any(
            c.dep_ in SUBJECTS or c.dep_ == "expl" for c in head.children
        ):
            continue
        subject = doc[head.i - 1]
        if subject.dep_ != "compound" or subject.head.i != head.i:
            continue
        if subject.pos_ not in ("NOUN", "PROPN") or not any(
            c.i > head.i and c.dep_ in _TAKEN_BY_VERBS for c in head.children
        ):
            continue
        for token in [c for c in head.children if c.i < subject.i]:
            token.head = subject
        subject.dep_ = "nsubj"
        head.tag_, head.pos_ = "VBZ", "VERB"


# What follows a verb (and not a noun heading a fragment): "lands at", "cycles everywhere".
_TAKEN_BY_VERBS = frozenset({"prep", "dobj", "advmod", "npadvmod", "prt", "xcomp", "ccomp"})


def _lost_subject(token: Any) -> Any | None:
    """The subject the small parser hung elsewhere before a subjectless "is": the noun phrase
    just before it, read as an object or a verb ("Farah told me their meeting tool is Jitsi.",
    "the team lead is Kenji": "tool" the object of "told", "lead" a verb)."""
    if token.lemma_ != "be" or token.i == 0 or token.dep_ not in ("ccomp", "conj"):
        return None
    before = token.doc[token.i - 1]
    while before.dep_ in ("pobj", "prep") and before.head.i < before.i:
        before = before.head  # "their database for the billing service is ..."
    if before.pos_ in ("NOUN", "PROPN") and before.dep_ in ("dobj", "ccomp", "xcomp"):
        return before
    return None


def _said_by_speaker(token: Any) -> bool:
    """A sentence with no subject whose verb is in the past: the speaker left "I" out
    ("Switched to a Pixel 8.", "Moved everything over to Bitwarden."; a verb that opens a
    chat fragment the parser hangs below another word counts too: "changed to Hokas, way
    comfier", "cancelled spotify, on apple music now"). A bare verb is a request ("Book my
    calls in the afternoon."), and says nothing of anyone."""
    opens = token.i == token.sent.start and token.dep_ in ("ccomp", "amod", "advcl", "csubj")
    return (
        (token.dep_ == "ROOT" or opens)
        and token.pos_ == "VERB"
        and token.tag_ in ("VBD", "VBN")
        and not any(c.dep_ in SUBJECTS or c.dep_ == "expl" for c in token.children)
    )


def is_question(sentence: Any) -> bool:
    """Whether a parsed sentence asks (ends with "?")."""
    words = [t for t in sentence if not t.is_space]
    return bool(words) and words[-1].text.endswith("?")


# Words that ask which ("where I keep the bikes") or nouns that only stand for the thing a
# cleft puts first ("something I can't eat", "the place where I grew up").
_WH = frozenset({"where", "when", "what", "who", "whom", "why", "how", "which"})
_LIGHT = frozenset({"something", "thing", "one", "place", "day", "time", "person", "stuff"})


def clefts(doc: Any) -> tuple[dict[int, list[Any]], set[int]]:
    """The clefts of a parsed line: for each clause a cleft puts a thing before, that thing's
    tokens; and the copulas that only make the cleft (they claim nothing themselves).

    "In the garage is where I keep the bikes." says "I keep the bikes in the garage": the
    copula's other words (its subject, a phrase, its complement) belong to the clause
    introduced by a wh-word ("where", "what", "when") or hung on a light noun ("something I
    can't eat", "the thing I love most"); the wh-word and the light noun are left out.
    """
    inner: dict[int, list[Any]] = {}
    copulas: set[int] = set()
    for copula in doc:
        if copula.lemma_ != "be":
            continue
        clause = next((c for c in copula.children if _wh_clause(c)), None)
        light = next((c for c in copula.children if c.dep_ == "attr" and c.lower_ in _LIGHT), None)
        if clause is None and light is not None:
            clause = next((c for c in light.children if c.dep_ == "relcl"), None)
        if clause is None:
            continue
        held = {t.i for t in clause.subtree} | {copula.i}
        if light is not None:
            held.add(light.i)
        focus = [
            t
            for t in copula.subtree
            if t.i not in held and not t.is_punct and t.dep_ != "det" and t.lower_ not in _WH
        ]
        if focus:
            inner[clause.i] = focus
            copulas.add(copula.i)
    return inner, copulas


def _wh_clause(token: Any) -> bool:
    """A clause below a copula that a wh-word introduces ("where I keep the bikes", "what I
    drive")."""
    if token.dep_ not in ("advcl", "ccomp", "csubj") or token.pos_ not in ("VERB", "AUX"):
        return False
    return any(c.lower_ in _WH and c.i < token.i for c in token.children)
