"""What a statement is about: the claims a dependency parse finds in it.

A memory such as "Sorry, I meant Austin - I live in Austin now." makes one claim::

    Claim(subject="user", predicate="live", value=("austin", "in"), negated=False, state=True)

* **subject**: who or what the claim is about, as a noun phrase with its owners and modifiers:
  ``user`` (I, me, we, "the user"), ``ana``, ``user sister`` (my sister), ``user phone number``,
  ``ana flight to berlin``. Words that only say a version is newer ("new", "current",
  "updated") are not part of it. In a line that starts with a speaker ("Mira: I ..."), the
  first person is that speaker; an assistant's lines make no claims.
* **predicate**: the verb's lemma with its particle (``live``, ``be``, ``move``, ``pick up``).
* **value**: everything else the clause says (objects, complements, prepositional phrases),
  as sorted canonical words, without the words that only place it in time ("now", "these
  days", "anymore") or lead into it ("actually", "sorry").
* **negated**: "not", "n't", "never", "no longer".
* **state**: the claim says how things are (present tense, or a past change of state such as
  "moved", "joined", "quit"), not a one-off past event ("went", "watched"): only states can
  be updated.

Lead-in clauses ("I meant", "I said", "I think") make no claims of their own. Reading a text
costs a parse (about 1.5 ms, 0.5 ms in a batch); :class:`cogmem.reader.StatementReader` reads
many at once and keeps the last reads. Numbers, clock times and spellings are made canonical
first (:mod:`cogmem.canonical`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .canonical import us_spelling
from .claims import BARE_CHANGES, CHANGE_VERBS, PRONOUNS, TIME_WORDS, Claim, Statement
from .clauses import (
    FIRST_PERSON,
    OTHER_POSSESSIVES,
    SUBJECTS,
    VERSION_WORDS,
    clauses,
    clefts,
    is_question,
    owned_by_pronoun,
    phrase,
    subject_phrase,
    word,
)

__all__ = [
    "ADJUSTERS",
    "BARE_CHANGES",
    "CHANGE_VERBS",
    "MAX_WORDS",
    "PRONOUNS",
    "TIME_WORDS",
    "Claim",
    "Statement",
    "read_doc",
]


#: A text of more words than this is a document, not a statement: its claims are not read (a
#: memory is a sentence or a few; a parse costs time in proportion to the words).
MAX_WORDS = 80
# Words that place a claim in time or lead into it, not part of what it says.
_FILLERS = frozenset(
    {
        "now", "currently", "nowadays", "presently", "still", "actually", "really", "just",
        "also", "anymore", "today", "these", "day", "days", "sorry", "oops", "wait", "well",
        "ok", "okay", "so", "indeed", "correction", "update", "fyi", "btw", "anyway", "yes",
        "no", "longer", "officially", "finally", "again", "too", "instead", "then", "already",
        "named", "called",  # "two daughters named Zara and Mina": two daughters, Zara and Mina
    }
)  # fmt: skip
# Verbs that lead into what is said and claim nothing themselves ("I meant", "as I said").
_LEAD_INS = frozenset(
    {
        "mean", "say", "tell", "think", "guess", "realize", "realise", "forget", "mention",
        "note", "correct", "know", "wonder", "believe", "suppose", "remember", "recall",
        "clarify", "misspeak", "confirm", "add", "write", "type", "reckon", "bet", "update",
        "remind", "repeat",
    }
)  # fmt: skip
# Verbs that set something to a new value: "changed my number to ...", "switched the plan to".
_SETTERS = frozenset({"change", "switch", "update", "set", "reset", "move", "bump", "push"})
# Verbs that book a thing for a time: "is booked for 2 June" says when it is; "rebooked the
# MOT for 9 June" sets it to another day.
_BOOKINGS = frozenset(
    {"book", "rebook", "schedule", "reschedule", "plan", "set", "move", "push", "slate"}
)
_VALUE_POS = frozenset({"NOUN", "PROPN", "NUM", "ADJ", "VERB", "ADV", "ADP", "X", "SYM", "PRON"})
_SKIP_DEPS = frozenset(
    {
        "conj", "cc", "ccomp", "parataxis", "advcl", "relcl", "punct", "aux", "auxpass",
        "neg", "mark", "intj", "det", "expl", "discourse", "dep", "meta", "preconj", "case",
        "appos",
    }
)  # fmt: skip


def _negated(verb: Any) -> bool:
    for child in verb.children:
        if child.dep_ == "neg" or child.lower_ in ("never", "n't", "not"):
            return True
        if child.lower_ in ("longer", "more") and any(g.lower_ == "no" for g in child.children):
            return True
    return False


def _value(verb: Any, skip: set[int]) -> list[Any]:
    """The tokens of what ``verb``'s clause says of its subject (for a verb the parser hung on
    the noun it acts on, "cancelled spotify": that noun's phrase)."""
    out: list[Any] = []
    stack = [c for c in verb.children if c.i not in skip and c.dep_ not in _SKIP_DEPS]
    stack = [c for c in stack if c.dep_ not in SUBJECTS]
    if verb.dep_ == "amod":
        out.append(verb.head)
        stack += [c for c in verb.head.children if c.i != verb.i and c.dep_ not in _SKIP_DEPS]
    while stack:
        token = stack.pop()
        out.append(token)
        stack.extend(
            c for c in token.children if c.dep_ not in ("relcl", "punct", "det", "case", "cc")
        )
    return sorted(out, key=lambda t: t.i)


def _state(verb: Any) -> bool:
    """Whether ``verb``'s clause says how things are (see the module docstring)."""
    tags = {verb.tag_, *(c.tag_ for c in verb.children if c.dep_ in ("aux", "auxpass"))}
    past = "VBD" in tags or ("VBN" in tags and verb.dep_ != "amod")
    present = bool(tags & {"VBZ", "VBP", "MD"}) or any(
        c.lower_ in ("now", "currently", "nowadays") for c in verb.children
    )
    return present or not past or verb.lemma_.lower() in CHANGE_VERBS


def _simple_present(verb: Any) -> bool:
    """Whether ``verb`` is said in the simple present, active or passive ("takes", "get",
    "is closed on Mondays", "gets lost"; not "is taking", "has taken", "will get", "took",
    "was replaced")."""
    if any(c.dep_ == "aux" for c in verb.children):
        return False
    passive = [c for c in verb.children if c.dep_ == "auxpass"]
    if passive:
        return verb.tag_ == "VBN" and all(c.tag_ in ("VBZ", "VBP") for c in passive)
    return verb.tag_ in ("VBZ", "VBP")


def _predicate(verb: Any) -> str:
    lemma = us_spelling(verb.lemma_.lower())
    if verb.pos_ == "NOUN" and verb.tag_ == "NNS" and verb.lower_.endswith("s"):
        lemma = verb.lower_[:-1]  # a verb the small model read as a plural: "lives" not "life"
    auxiliaries = {c.lemma_.lower() for c in verb.children if c.dep_ == "aux"}
    if lemma == "get" and verb.tag_ in ("VBN", "VBD") and "have" in auxiliaries:
        lemma = "have"  # "we've got two kids": have
    if _lemma(verb, _BOOKINGS) in _BOOKINGS and any(c.dep_ == "auxpass" for c in verb.children):
        lemma = "be"  # "the MOT is booked for 2 June": the MOT is on 2 June
    particles = [c.lower_ for c in verb.children if c.dep_ == "prt"]
    return " ".join([lemma, *particles])


def _complement(verb: Any) -> tuple[str, str]:
    for child in verb.children:
        if child.dep_ in ("attr", "acomp", "oprd", "dobj"):
            words = [
                word(t)
                for t in child.subtree
                if t.dep_ not in ("det", "punct")
                and t.lower_ not in VERSION_WORDS
                and t.lower_ not in _FILLERS
            ]
            return " ".join(words), _kind(list(child.subtree))
    return "", ""


def _being(subject: str, owner: str, tokens: Sequence[Any], **extra: Any) -> Claim:
    """The claim that ``subject`` is what ``tokens`` say (a label's value, a state)."""
    words = [word(t) for t in tokens]
    kind = _kind(tokens)
    return Claim(
        subject=subject,
        predicate="be",
        value=tuple(sorted(words)),
        owner=owner,
        complement=" ".join(words),
        complement_kind=kind,
        value_kind=kind,
        **extra,
    )


def _kind(tokens: Sequence[Any]) -> str:
    """``number`` (a digit), ``name`` (a proper noun written with a capital, or in a text
    with none; or a capitalised word inside the sentence; not a day or month: "vegetarian on
    Tuesdays" is a word) or ``word``."""
    if any(any(ch.isdigit() for ch in t.text) for t in tokens):
        return "number"
    if any(_named(t) and t.lower_ not in TIME_WORDS for t in tokens):
        return "name"
    return "word" if tokens else ""


def _named(token: Any) -> bool:
    if _capitalised(token):
        return token.pos_ == "PROPN" or not token.is_sent_start
    return token.pos_ == "PROPN" and not any(ch.isupper() for ch in token.doc.text)


def _capitalised(token: Any) -> bool:
    """Written with a capital as a name is: "Dune", "MongoDB", "iPhone" (not "I")."""
    return token.lower_ != "i" and any(ch.isupper() for ch in token.text) and token.is_alpha


def read_doc(doc: Any, speaker: str) -> list[Claim]:
    """The claims of one parsed line said by ``speaker``."""
    claims: list[Claim] = []
    asked = {t.i for sent in doc.sents if is_question(sent) for t in sent}
    reporters: dict[int, Any] = {}  # a lead-in verb -> who says ("Chen said they ...")
    found = list(clauses(doc))
    for verb, subject in found:
        if verb.lemma_.lower() in _LEAD_INS and subject is not None:
            reporters[verb.i] = subject
    heads = {verb.i for verb, _ in found}
    focus, copulas = clefts(doc)
    for verb, subject in found:
        if verb.i in asked or verb.i in copulas:  # a question claims nothing; nor a cleft's "is"
            continue
        habit = _used_to(verb)  # "I used to work at Target": work, in the past
        acts = habit if habit is not None else verb
        predicate = _predicate(acts)
        said = subject.lower_ if subject is not None else "i"
        if verb.lemma_.lower() in _LEAD_INS and (
            said in FIRST_PERSON | {"you"}
            or any(c.dep_ in ("ccomp", "xcomp") for c in verb.children)
        ):
            continue  # "I meant ...", "Chen said ...": what follows is the claim
        if verb.pos_ not in ("VERB", "AUX") and verb.dep_ not in ("ROOT", "conj"):
            continue  # the small model tags some verbs as nouns ("renews"): a head counts
        reporter = reporters.get(verb.head.i) if verb.dep_ == "ccomp" else None
        if reporter is not None and said in ("he", "she", "they"):
            subject = reporter  # "Chen said they moved on": Chen moved on
        if subject is None:
            who, owner, person = speaker, "", True
        else:
            who, owner, person = subject_phrase(subject, speaker)
            person = person or subject is reporter  # "they" of "Rina said they ..."
            if not owner and claims and owned_by_pronoun(subject):
                # "Clementine's farrier comes every 6 weeks; his name is Dale.": "his" of a
                # later clause is taken as the subject of the one before it, when that is not
                # the speaker ("I met a guy; his name is Tom": the guy's, not known here)
                before = claims[-1].subject
                if before != speaker and before not in PRONOUNS:
                    owner, who = before, f"{before} {who}"
        if reporter is not None and not owner and not person:
            # "Paula says the diet is vegan": Paula's diet
            owner = subject_phrase(reporter, speaker)[0]
            who = f"{owner} {who}"
        skip = {t.i for t in subject.subtree} if subject is not None else set()
        tokens = [
            t
            for t in _value(acts, skip)
            if t.pos_ in _VALUE_POS and t.lower_ not in _FILLERS and not t.is_space
        ]
        if predicate not in BARE_CHANGES and _leads_in(verb, tokens):
            continue  # "Airline rescheduled: ...", "Aunt Vera corrected me - ...": a lead-in
        if not tokens and predicate in BARE_CHANGES:
            tokens = _after(verb, heads)
        complement, kind = _complement(acts)
        if verb.i in focus:  # "Lyon is where my godmother lives": lives in Lyon
            tokens = [t for t in tokens if t.lower_ != "what"] + focus[verb.i]
            if complement == "what":  # "What I drive is a Subaru": drives a Subaru
                complement = " ".join(word(t) for t in focus[verb.i])
                kind = _kind(focus[verb.i])
        words = [word(t) for t in tokens]
        claim = Claim(
            subject=who,
            predicate=predicate,
            value=tuple(sorted(words)),
            owner=owner,
            complement=complement,
            complement_kind=kind,
            value_kind=_kind(tokens),
            negated=_negated(verb) or _negated(acts),
            state=habit is None and _state(verb),
            person=person,
            roles=frozenset(
                f"{t.head.lower_} {word(t)}"
                for t in tokens
                if t.dep_ == "pobj" and t.head.dep_ == "prep"
            ),
            nouns=frozenset(word(t) for t in tokens if t.pos_ == "NOUN"),
            modifiers=frozenset()
            if subject is None
            else frozenset(word(t) for t in subject.subtree if t.pos_ in ("ADJ", "ADV")),
            habitual=habit is None and _simple_present(verb),
        )
        said_by = subject_phrase(reporter, speaker)[0] if reporter is not None else ""
        if said_by and claim.subject == "it":  # "Kofi said it is ...": Kofi's, whatever it is
            claim = replace(claim, owner=said_by)
        claims.append(
            _set_to(claim, verb, speaker)
            or _it_for(claim, verb, said_by, speaker)
            or _owned_complement(claim, verb, speaker)
            or _works_as(claim, verb)
            or claim
        )
    for sent in doc.sents:
        if not any(sent.start <= verb.i < sent.end for verb, _ in found):
            claims.extend(_labelled(sent, speaker))
    return claims


def _labelled(sent: Any, speaker: str) -> list[Claim]:
    """ "Favorite color: green", "User's home airport: Manchester", "New email address:
    x@y.org": a line with no verb that names a thing in words, then after a colon what it is,
    read as "the thing is what follows" (no claim for any other verbless line)."""
    root = sent.root
    colon = next((c for c in root.children if c.text == ":" and c.i > root.i), None)
    if root.pos_ not in ("NOUN", "PROPN") or colon is None:
        return []
    if any(t.is_punct and t.dep_ != "case" for t in sent if t.i < colon.i):
        return []  # a label is words (and possessives): not a quoted JSON key ('{"text": ...}')
    after = [t for t in sent if t.i > colon.i]
    tokens = [
        t for t in after if t.pos_ in _VALUE_POS and t.lower_ not in _FILLERS and not t.is_space
    ]
    if not tokens:
        return []
    who, owner, _ = subject_phrase(root, speaker, frozenset(t.i for t in after))
    return [_being(who, owner, tokens)]


def _leads_in(verb: Any, tokens: Sequence[Any]) -> bool:
    """Whether a clause only leads into what follows a colon or dash ("Airline rescheduled:
    ...", "Aunt Vera corrected me - ..."): it says nothing of its own but who told or did it
    (at most a pronoun), and the mark comes right after it."""
    if any(t.pos_ != "PRON" for t in tokens):
        return False
    after = verb.doc[verb.i + 1 : verb.i + 3]
    rest = [t for t in after if not (t.pos_ == "PRON" and t.dep_ in ("dobj", "dative"))]
    return bool(rest) and rest[0].text in _LEAD_MARKS


_LEAD_MARKS = frozenset({":", "—", "–", "-", "--"})


def _after(verb: Any, heads: set[int]) -> list[Any]:
    """What a bare change names after it, outside its own clause: "Dana switched; now Acme
    Corp." (a fragment the parser hangs elsewhere). Stops at the next clause with a subject
    ("I switched - now it is Firefox": that clause speaks for itself)."""
    out: list[Any] = []
    for token in verb.doc[verb.i + 1 : verb.sent.end]:
        if token.i in heads or token.dep_ in SUBJECTS:
            break
        if token.pos_ in _VALUE_POS and token.lower_ not in _FILLERS and _spelled(token):
            out.append(token)
    return out


def _spelled(token: Any) -> bool:
    """Whether a token holds a letter or digit (not a dash or a quote)."""
    return any(ch.isalnum() for ch in token.text)


def _it_for(claim: Claim, verb: Any, said_by: str, speaker: str) -> Claim | None:
    """ "These days it is Zoom for my meetings" read as "my meetings are Zoom": "it" + a
    copula + what it is + "for" what (``None`` for any other clause). A "their" or "his" is
    whoever reports it ("Kofi said that it is Dune for their book club pick")."""
    if claim.subject != "it" or verb.lemma_.lower() != "be":
        return None
    what = next((c for c in verb.children if c.dep_ in ("attr", "acomp")), None)
    if what is None:
        return None
    preps = [c for c in (*verb.children, *what.children) if c.dep_ == "prep"]
    use = next((c for c in preps if c.lower_ == "for"), None)
    if use is None:
        return None
    thing = next((c for c in use.children if c.dep_ == "pobj"), None)
    if thing is None:
        return None
    mine = next((c for c in thing.children if c.dep_ == "poss"), None)
    if mine is None or mine.lower_ not in FIRST_PERSON | OTHER_POSSESSIVES:
        return None
    owner = said_by if mine.lower_ in OTHER_POSSESSIVES else speaker
    if not owner:
        return None  # "their", said by nobody named
    named = [w for w in phrase(thing.subtree, thing, speaker) if w not in OTHER_POSSESSIVES]
    if named[:1] == [speaker]:
        named = named[1:]
    skip = {t.i for t in use.subtree}
    tokens = [t for t in what.subtree if t.i not in skip and t.pos_ in _VALUE_POS]
    words = [word(t) for t in tokens]
    return Claim(
        subject=" ".join([owner, *named]),
        predicate="be",
        value=tuple(sorted(words)),
        owner=owner,
        complement=" ".join(words),
        complement_kind=_kind(tokens),
        value_kind=_kind(tokens),
        negated=claim.negated,
        state=True,
    )


def _owned_complement(claim: Claim, verb: Any, speaker: str) -> Claim | None:
    """ "Dr. Kowalski is my cardiologist" read as "my cardiologist is Dr. Kowalski", "Ethiopian
    food is my favorite" as "my favorite is Ethiopian food": something said to be someone's
    role or thing, read with that role as the subject (the slot) and what fills it as the
    value, as the other order says it; a name said to be "the" role is the speaker's
    (:func:`_the_role`). ``None`` for any other clause (and for a subject that
    is itself owned: "my car is my pride")."""
    if claim.predicate != "be" or claim.owner or claim.subject == speaker or claim.negated:
        return None
    if claim.subject in PRONOUNS or claim.subject in ("what", "who"):
        return None
    what = next((c for c in verb.children if c.dep_ == "attr"), None)
    if what is None:
        return None
    if any(c.dep_ == "poss" for c in what.children):
        role, owner, _ = subject_phrase(what, speaker)
    elif _the_role(what, verb):  # "the landlord": the speaker's, as "my landlord" is
        role, owner = f"{speaker} {subject_phrase(what, speaker)[0]}", speaker
    else:
        return None
    if not owner or role == owner:
        return None
    name = claim.subject.split()
    return replace(
        claim,
        subject=role,
        owner=owner,
        value=tuple(sorted(name)),
        complement=claim.subject,
        complement_kind="name",
        value_kind="name",
        person=False,
        roles=frozenset(),
    )


def _the_role(what: Any, verb: Any) -> bool:
    """Whether ``verb`` says a name is "the" role, with nothing after the role to say whose
    or which it is ("Pavlov is the landlord.", "Sunil is the drummer."; not "Paris is the
    capital of France.", "Ana is the one who called."): in what one person tells, their
    own landlord, as "my landlord" is."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    return (
        subject is not None
        and subject.pos_ == "PROPN"
        and what.pos_ == "NOUN"
        and any(c.dep_ == "det" and c.lower_ == "the" for c in what.children)
        and not any(c.dep_ in ("prep", "relcl", "acl") for c in what.children)
    )


def _used_to(verb: Any) -> Any | None:
    """The verb of a past habit ("I used to work at Target": "work"), when ``verb`` is that
    "used" ("We used the car to get there" is no habit: "used" has an object)."""
    if verb.lemma_.lower() != "use" or verb.tag_ != "VBD":
        return None
    if any(c.dep_ in ("dobj", "obj") for c in verb.children):
        return None
    for child in verb.children:
        if child.dep_ == "xcomp" and any(
            a.dep_ == "aux" and a.lower_ == "to" for a in child.children
        ):
            return child
    return None


def _works_as(claim: Claim, verb: Any) -> Claim | None:
    """ "works as a surveyor" (an agent's note) says what "is a surveyor" says: the role after
    "as" is the complement of "be"."""
    if claim.predicate not in _ROLE_VERBS or claim.complement:
        return None
    for prep in verb.children:
        objects = [c for c in prep.children if c.dep_ == "pobj"]
        if prep.dep_ == "prep" and prep.lower_ == "as" and objects:
            role = [t for t in objects[0].subtree if t.dep_ not in ("det", "punct")]
            return replace(
                claim,
                predicate="be",
                value=tuple(w for w in claim.value if w != "as"),
                complement=" ".join(word(t) for t in role),
                complement_kind=_kind(role),
                roles=frozenset(r for r in claim.roles if not r.startswith("as ")),
            )
    return None


_ROLE_VERBS = frozenset({"work", "serve"})


def _set_to(claim: Claim, verb: Any, speaker: str) -> Claim | None:
    """ "Chen changed their phone number to 555-0110" read as "Chen's phone number is
    555-0110": a change verb whose object names what changed and whose "to" names how it is
    now; a booking's "for" a time too ("Rebooked the MOT for 9 June."; "had to move the
    dinner to the 23rd" through its "had to"). A verb that adjusts an amount speaks of the
    thing whoever did it: "Doctor lowered my Lexapro to 10 mg a day" says my Lexapro is 10 mg
    a day, "Landlord raised the rent by $150" that the rent rose (by $150). ``None`` for any
    other clause. The thing is its possessive's ("my Lexapro": the speaker's; "their phone
    number": the subject's; "Ana's cluster": Ana's), else nobody's ("the MOT")."""
    verb = next((c for c in verb.children if _obliged(verb, c)), verb)
    lemma = _lemma(verb, _SETTERS | _BOOKINGS | ADJUSTERS)
    if lemma not in _SETTERS | _BOOKINGS | ADJUSTERS:
        return None
    thing = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if thing is None or thing.lower_ in _NO_THING or thing.pos_ == "PRON":
        return None  # "moved everything over to Bitwarden": what moved is not named
    marks = ("to", "into", "for") if lemma in _BOOKINGS else ("to", "into")
    to = next((c for c in verb.children if c.dep_ == "prep" and c.lower_ in marks), None)
    value = next((c for c in to.children if c.dep_ == "pobj"), None) if to is not None else None
    adjusted = lemma in ADJUSTERS
    if (value is None and not adjusted) or not (claim.person or adjusted):
        return None
    tokens = [t for t in value.subtree if t.pos_ in _VALUE_POS and _spelled(t)] if value else []
    if to is not None and to.lower_ == "for" and not any(_is_when(t) for t in tokens):
        return None  # "booked a table for two": not when
    subject, owner = _owned_thing(claim, thing, speaker)
    if value is None:  # "raised the rent by $150": how it changed, not what it is now
        said = [
            t
            for c in verb.children
            if c.dep_ in ("prep", "advmod", "npadvmod") and c.i > thing.i
            for t in c.subtree
            if t.pos_ in _VALUE_POS and _spelled(t) and t.lower_ not in _FILLERS
        ]
        return replace(
            claim,
            subject=subject,
            owner=owner,
            predicate=lemma,
            value=tuple(sorted(word(t) for t in said)),
            complement="",
            complement_kind="",
            value_kind=_kind(said),
            person=False,
            roles=frozenset(),
        )
    return _being(subject, owner, tokens, negated=claim.negated, state=True)


def _owned_thing(claim: Claim, thing: Any, speaker: str) -> tuple[str, str]:
    """The subject phrase and owner of what a change verb changed: the speaker's for "my",
    the clause's subject's for "their"/"his"/"her", a name's for "Ana's"; nobody's without a
    possessive."""
    named = [w for w in phrase(thing.subtree, thing, speaker) if w not in OTHER_POSSESSIVES]
    owners = [t for t in thing.subtree if t.dep_ == "poss"]
    if not owners:
        return " ".join(named), ""
    if any(t.lower_ in OTHER_POSSESSIVES for t in owners):  # "changed their kid's school"
        if named[:1] == [claim.subject]:
            named = named[1:]
        return " ".join([claim.subject, *named]), claim.subject
    return " ".join(named), named[0] if named else ""


#: Verbs that adjust an amount or a date, whoever does it ("Landlord raised the rent").
ADJUSTERS = frozenset(
    {
        "raise", "lower", "increase", "decrease", "reduce", "cut", "double", "halve",
        "triple", "extend", "shorten", "adjust", "upgrade", "downgrade", "up", "boost",
    }
)  # fmt: skip


_NO_THING = frozenset({"everything", "it", "that", "this", "stuff", "things", "all", "them"})


def _obliged(verb: Any, child: Any) -> bool:
    """ "had to move", "need to change": the verb a "have to" clause is about."""
    return (
        child.dep_ == "xcomp"
        and verb.lemma_.lower() in ("have", "need", "get")
        and any(c.lower_ == "to" for c in child.children)
    )


def _lemma(verb: Any, known: frozenset[str]) -> str:
    """A verb's lemma, or the stem of a past form the lemmatizer missed ("rebooked" read as
    "rebooke") when that stem is one of ``known``."""
    lemma = str(verb.lemma_.lower())
    if lemma in known:
        return lemma
    text = str(verb.lower_)
    return next((stem for stem in (text[:-2], text[:-1]) if stem in known), lemma)


_WHEN = re.compile(r"^(?:\d{1,4}(?:[.:]\d{2})+|\d{1,2}(?:st|nd|rd|th))$")
_WHEN_WORDS = TIME_WORDS | {"tonight", "noon", "midnight", "next"}


def _is_when(token: Any) -> bool:
    """A date or time ("06.09", "17:30", "23rd", "Friday", "tomorrow")."""
    return bool(_WHEN.match(token.lower_)) or token.lower_ in _WHEN_WORDS
