"""Which way a difference goes, as a document says it: its sign, or the word that gives it one.

A signed difference is candidate − baseline in the metric's own unit (``dropout − no_dropout =
+0.081 test loss``), as ``rgt verify`` writes it, unless the text declares the other convention
(``a positive difference means better``, ``+ = better``) for its block and the blocks of its
section after it. A word gives an unsigned difference its sign: ``raises``/``lowers`` (and
*higher*, *increases*, *reduces*, *drops*, …) say which way the metric moved; ``improves``/
``worsens`` (*better*, *gains*, *hurts*, …) whether that is better. A word that says the wrong
way is drift, and its fix is the opposite word.
"""

from __future__ import annotations

import re

DIRECTIONS = {
    "better": r"improv\w*|helps?|gains?|outperforms?|beats?|better",
    "worse": r"hurts?|worsen\w*|degrad\w*|costs?|loses?|worse|underperforms?",
    "up": r"raises?|raised|increas\w*|rises?|boosts?|higher|grows?",
    "down": r"lowers?|lowered|reduc\w*|decreas\w*|drops?|falls?|declines?|lower|cuts?",
}
# Right after a number (``0.081 higher``) a comparative says the direction.
AFTER_WORDS = {"higher": "up", "larger": "up", "more": "up", "lower": "down",
               "smaller": "down", "less": "down", "fewer": "down", "better": "better",
               "worse": "worse", "stronger": "better", "weaker": "worse",
               "ahead": "better", "behind": "worse"}  # a ranking's
OPPOSITE = {"better": "worse", "worse": "better", "up": "down", "down": "up"}
# Each word and its opposite, in the same grammatical form (used both ways).
ANTONYMS = [
    ("improves", "worsens"), ("improve", "worsen"), ("improved", "worsened"),
    ("improving", "worsening"), ("improvement", "degradation"), ("helps", "hurts"),
    ("help", "hurt"), ("better", "worse"), ("gains", "loses"), ("gain", "loss"),
    ("outperforms", "underperforms"), ("higher", "lower"), ("raises", "lowers"),
    ("raise", "lower"),
    ("raised", "lowered"), ("increases", "decreases"), ("increase", "decrease"),
    ("increased", "decreased"), ("increasing", "decreasing"), ("rises", "falls"),
    ("rise", "fall"), ("grows", "shrinks"), ("boosts", "cuts"),
    ("larger", "smaller"), ("more", "less"), ("reduces", "increases"), ("reduce", "increase"),
    ("reduced", "increased"), ("reducing", "increasing"), ("reduction", "increase"),
    ("drops", "rises"), ("drop", "rise"), ("declines", "rises"), ("degrades", "improves"),
    ("costs", "gains"), ("fewer", "more"), ("ahead", "behind"), ("stronger", "weaker"),
]
FALLBACK = {"better": "improves", "worse": "worsens", "up": "raises", "down": "lowers"}
AFTER = re.compile(rf"\s*(?:pp\b|points?\b|%)?\s*(?P<word>{'|'.join(AFTER_WORDS)})\b",
                   re.IGNORECASE)
# ``21% more accurate``: more of a quality is better, whichever way its metric goes (an error)
QUALITY_AFTER = re.compile(r"\s*(?:pp\b|points?\b|%)?\s*(?P<word>more|less)\s+(?:accurate|precise|"
                           r"efficient|robust|effective|reliable)\b", re.IGNORECASE)
AFTER_A_NUMBER = re.compile(r"\d\s*%?\s*(?:pp\b|points?\b)?\s*$", re.IGNORECASE)
POSITIVE_IS_BETTER = re.compile(
    r"(?:\bpositive|\+)\s*(?:differences?|diffs?|values?|numbers?|signs?|deltas?)?\s*"
    r"(?:=|means?|is|are|indicates?|denotes?)\s*(?:an?\s+)?(?:better|improvements?)\b",
    re.IGNORECASE)


def declares_positive_is_better(text: str) -> bool:
    """``a positive difference means better``, ``+ = better``: signs read as better/worse."""
    return POSITIVE_IS_BETTER.search(text) is not None


# a table's row or column of improvements: ``Relative improvement, %``, ``Improvement (%)``,
# ``Imp. %``
IMPROVEMENTS = re.compile(r"\W*(?:rel(?:ative|\.)\s+)?(?:improvements?|imp\.)[\s,:()%]*",
                          re.IGNORECASE)


def labels_improvements(label: str) -> bool:
    """Whether a row's or column's name says its numbers are improvements: signed, they read
    positive = better (``-8 %`` under ``Relative improvement, %`` for a higher error)."""
    return IMPROVEMENTS.fullmatch(label) is not None


# a change's own label right before it: "Δloss -0.0007", "Δ +0.0027", "delta: 0.3"
DELTA_LABEL = re.compile(r"(?:\u0394|\bdelta)[\w-]*\s*[:=]?\s*[`'\"]?\s*$", re.IGNORECASE)


def direction_words(before: str, after: str) -> set[str]:
    """The word nearest a number that gives it a direction, as ``{name, "word:<text>"}``:
    the last one in its clause before it, else a comparative right after it (``0.081
    higher``: a difference, then). A comparative right after an earlier number is that
    number's (``17.9% lower than the first and 2.5% better than the last``)."""
    if DELTA_LABEL.search(before):
        return {"difference"}  # "Δloss -0.0007": the change itself, whatever words are near
    clause = re.split(r"[,;]|\.\s", before)[-1]
    found = [(match.start(), _of_an_error(clause, match, name), match.group(0))
             for name, words in DIRECTIONS.items()
             for match in re.finditer(rf"\b(?:{words})\b", clause, re.IGNORECASE)
             if not AFTER_A_NUMBER.search(clause[:match.start()])]
    if found:
        _, name, word = max(found)
        return {name, f"word:{word}"}
    quality = QUALITY_AFTER.match(after)
    if quality is not None:
        word = quality.group("word")
        return {"better" if word.lower() == "more" else "worse", f"word:{word}", "difference"}
    match = AFTER.match(after)
    if match is None:
        return set()
    word = match.group("word")
    return {AFTER_WORDS[word.lower()], f"word:{word}", "difference"}


# ``an error reduction of 2.9%``, ``reduces the error by``: less error is better, whatever
# the metric stated (an F1 score)
ERROR_BEFORE = re.compile(r"\berrors?\s+$", re.IGNORECASE)
ERROR_AFTER = re.compile(r"\s+(?:(?:in|of)\s+)?(?:the\s+)?errors?\b", re.IGNORECASE)


def _of_an_error(clause: str, match: re.Match, name: str) -> str:
    """``better`` for a word saying an error went down, else ``name``."""
    if name == "down" and (ERROR_BEFORE.search(clause[:match.start()])
                           or ERROR_AFTER.match(clause, match.end())):
        return "better"
    return name


def opposite_word(word: str, name: str) -> str:
    """The word saying the other way (``lowers`` → ``raises``), in the word's own case."""
    lower = word.lower()
    pairs = {b: a for a, b in reversed(ANTONYMS)} | dict(ANTONYMS)
    found = pairs.get(lower) or FALLBACK[OPPOSITE[name]]
    return found.capitalize() if word[:1].isupper() else found
