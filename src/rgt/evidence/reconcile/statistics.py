"""Statements in a text: a value with what qualifies it, a confidence interval, a seed count.

``0.9467 ± 0.0057`` is one statement (a value and its spread); ``−0.0062 (95% CI [−0.0124,
−0.0012])`` is another (a value, a confidence level and two bounds); ``over 3 seeds`` a third.
Numbers that name something rather than state a result are not read: references (``Table 2``,
``Section 4.2``, ``PyTorch 2.1``), counts of things (``200 epochs``, ``8 GPUs``, ``1.9×``), money
and bare integers. A quantity in a time, memory or power unit (``18.7 ms``) keeps its unit in
its form (``unit:ms``): only a metric measured in that unit may claim it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rgt.evidence.reconcile.direction import direction_words
from rgt.evidence.reconcile.numbers import Number, find_numbers, parse_number

VALUE = r"[-+\u2212]?(?:\d+(?:\.\d+)?|\.\d+)(?:\s?%|\s?pp\b|[eE][-+\u2212]?\d+\b)?"
REFERENCE = re.compile(
    r"\b(?:sections?|sec\.|§|tables?|tab\.|figures?|figs?\.|eqs?\.|equations?|appendix|app\.|"
    r"algorithms?|alg\.|lines?|chapters?|ch\.|theorems?|lemmas?|definitions?|python|pytorch|"
    r"torch|cuda|cudnn|tensorflow|keras|jax|numpy|ubuntu|debian|centos|windows|macos|driver|"
    r"arxiv:?|version|release|rule)\s*~?\s*\(?\s*$",
    re.IGNORECASE,
)
UNIT = re.compile(
    r"\s?(?:ms|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|days?|[kKMGT]i?B|GPUs?|"
    r"GPU[- ]hours?|epochs?|steps?|iterations?|px|pixels?|x|\u00d7|fps|it/s|samples?|images?|"
    r"examples?|tokens?|layers?|W|\u00b0C|cores?|CPUs?|nodes?|USD|EUR|degrees?|rad|radians?)(?![\w])"
    r"|\s?/\s?(?:h|s)\b|\s?\u00b0(?!\s?[CF]\b)"
    r"|[-\s]fold\b"  # a factor: "rose 2.5-fold"
)
# The settings of a test, not its results: "80% power", "alpha = 0.05", "p <= 0.05", "p = 0.19".
TEST_SETTING_BEFORE = re.compile(
    r"(?:\b(?:p|p-value|alpha|\u03b1|significance(?:\s+level)?)\s*(?:[=<>\u2264\u2265]|of|at)?"
    r"\s*[=<>\u2264\u2265]?\s*|\bpower\s*(?:of|=|:)?\s*)$", re.IGNORECASE)
# numbers in thousands or millions whose list ends on what they count ("trained for 1M
# (Hopper-v2), 3M (HalfCheetah-v2) or 10M (Humanoid-v2) timesteps")
COUNTED_LATER = re.compile(r"[^.;:]{0,100}?\b(?:time\s?steps?|steps|frames|samples|iterations|"
                           r"tokens|episodes|images|examples)\b", re.IGNORECASE)
# a loss's or a decoder's weight set to a number (``ctc_weight 0.3, reverse weight 0.5``)
WEIGHT_BEFORE = re.compile(r"(?:^|[\W_])weight\s*[=:]?\s*$", re.IGNORECASE)
TEST_SETTING_AFTER = re.compile(r"\s*%?\s*(?:statistical\s+)?power\b", re.IGNORECASE)
MONEY = re.compile(r"[$\u20ac\u00a3]\s?$")
FUNCTION_BEFORE = re.compile(r"\b(?:log|ln|exp|sqrt)\s*\(?\s*$")  # ``log 1.66``: an argument
SPREAD = re.compile(rf"\s*\(?\s*(?:\u00b1|\+/-|\+-)\s*(?P<num>{VALUE})"  # also "(±0.0004)"
                    # "mean 85.87 and std 0.07", "83.6, s.d. 0.2", "83.6 (std: 0.2)"
                    rf"|\s*(?:,|;|\band\b|\bwith\b|\()?\s*(?:an?\s+)?(?:std|s\.d\.|sd|stdev|"
                    rf"standard\s+deviation)\s*(?:of|=|:)?\s*(?P<worded>{VALUE})", re.IGNORECASE)
BRACKETS = re.compile(rf"\s*[\[(]\s*(?P<low>{VALUE})\s*[,;]\s*(?P<high>{VALUE})\s*[\])]")
REFERENCES = re.compile(r"\[\d+(?:,\s?\d+)+\]")  # ``[2,3]``, ``[4, 7, 9]``: cited papers
POINTS = re.compile(r"\s+(?:percentage\s+)?points?\b", re.IGNORECASE)
CI_WORD = r"(?:CIs?\b|C\.I\.|confidence\s+intervals?|credible\s+intervals?)"
LEVEL = r"(?P<level>\d+(?:\.\d+)?\s?%)\s*-?\s*(?:bootstrap(?:ped)?\s+)?"
INTERVAL = re.compile(
    rf"(?:{LEVEL}|\b(?:bootstrap(?:ped)?\s+)?){CI_WORD}"
    rf"(?P<gap>[^\d\[(\u2212+\-;.]{{0,40}}?)(?P<open>[\[(])?\s*(?P<low>{VALUE})\s*"
    rf"(?:,|;|to|\u2013|\u2014|\.\.)\s*(?P<high>{VALUE})\s*(?(open)[\])])",
    re.IGNORECASE,
)
LEVEL_ONLY = re.compile(rf"{LEVEL}(?:{CI_WORD}|confidence|credible|level\b)", re.IGNORECASE)
WORDS = {"one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
         "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twenty": 20}
# ``10-fold splits`` counts runs; ``a 2-fold speed-up`` does not, nor ``10-fold
# cross-validation`` (a protocol: its folds times its repeats are the runs)
NOT_RUNS = (r"(?![-\s]+(?:increase|improvement|reduction|decrease|gain|speed|faster|slower|"
            r"larger|smaller|more|less|fewer|higher|lower|cross[-\s]?validat|cv\b))")
SEEDS = re.compile(
    rf"(?<![\d.,])\b(?P<n>\d+|{'|'.join(WORDS)})[\s-]+"
    r"(?:(?:random|independent|different|distinct|separate|training)\s+){0,2}"
    r"(?:seeds?|runs?|trials?|restarts?|repetitions?|repeats?|train[-\s]?test\s+splits?|folds?|"
    # averaged ``over 4 splits`` (each a run), not ``3 splits`` alone (train, val and test)
    r"(?<=\bover\s\d\s)splits|(?<=\bover\s\d\d\s)splits)\b"
    rf"{NOT_RUNS}|\bseeds?\s*[:=]\s*(?P<n2>\d+)\b"
    # ``by running 10 times``, ``repeated ten times``, ``carried out 5 times``, ``to do
    # experiments for 10 times``: the runs
    r"|\b(?:running|ran|run|repeated|repeating|repeat|carried\s+out|conducted|performed|do|did|"
    r"doing)\s+(?:(?:it|them|each|every|all|the|experiments?|models?|for)\s+){0,3}"
    rf"(?P<n3>\d+|{'|'.join(WORDS)})"
    r"\s+times\b(?!\s+(?:faster|slower|more|less|larger|smaller|higher|lower|fewer|better|worse|"
    r"as)\b)"
    # ``3-times average/best``: the runs averaged
    rf"|\b(?P<n4>\d+|{'|'.join(WORDS)})[-\s]times\s+(?:average|averaged|mean)\b"
    # ``The average of 5 experiments``, ``averaged over 3 experiments``: the runs averaged
    r"|\b(?:averages?|mean|median|averaged\s+over|averaged\s+across)\s+(?:of\s+|over\s+)?"
    rf"(?P<n5>\d+|{'|'.join(WORDS)})\s+experiments\b",
    re.IGNORECASE,
)
FILLER = re.compile(
    r"(?:\s|[:=(~\u2248$]|\b(?:of|is|was|were|are|about|around|roughly|approximately|only|"
    r"just|a|an|the|nearly|almost|some|up\s+to|at\s+(?:least|most)|as\s+much\s+as)\b)*",
    re.IGNORECASE,
)
TRAILING_FILLER = re.compile(FILLER.pattern + "$", re.IGNORECASE)
BY = re.compile(r"\bby\s*$", re.IGNORECASE)
# a list of changes after one ``by``, each maybe with its relative change in parentheses:
# ``by 1.71(3.89\%), 0.46(2.18\%), and 0.67(…)``; the parenthesis after one of them too
_CHANGE = r"[-+\u2212]?\d[\d.,]*\s?%?"
_LISTED = rf"(?:{_CHANGE}\s*(?:\(\s*{_CHANGE}\s*\)\s*)?,\s*(?:and\s+)?)"
BY_LIST = re.compile(rf"\bby\s+{_LISTED}+$|\bby\s+{_LISTED}*{_CHANGE}\s*\(\s*$", re.IGNORECASE)
_CHANGE_NOUNS = r"difference|gain|improvement|change|drop|decrease|increase|reduction"
# a list of changes after a change's noun: ``an increase of 0.2143 and 0.2864``
NOUN_LIST = re.compile(rf"\b(?:{_CHANGE_NOUNS})s?\s+of\s+"
                       rf"(?:{_CHANGE}\s*(?:,\s*(?:and\s+)?|and\s+))+$", re.IGNORECASE)
DIFFERENCE_NOUN = re.compile(rf"(?:\b(?:{_CHANGE_NOUNS}|diff|delta|effect|lift)|\u0394)\s*$",
                             re.IGNORECASE)


@dataclass(frozen=True)
class Part:
    """One number of a statement and what it states: value, spread, low, high, level, seeds,
    or the offsets above and below it of an interval around it."""

    role: str
    number: Number


@dataclass(frozen=True)
class Statement:
    """Numbers stated together; ``form`` says how the value is written (see ``value_form``)."""

    parts: tuple[Part, ...]
    start: int
    end: int
    form: frozenset[str] = frozenset()

    def part(self, role: str) -> Part | None:
        """The part playing ``role``, if any."""
        return next((part for part in self.parts if part.role == role), None)

    @property
    def anchor(self) -> int:
        """Where the statement sits (its first number), for distances to names."""
        return self.parts[0].number.start


def only_filler(text: str) -> bool:
    """Whether ``text`` holds only linking words (``of``, ``is``, ``=``, ``about``…)."""
    return FILLER.fullmatch(text) is not None


def _read(text: str, group: str, match: re.Match, role: str) -> Part | None:
    number = parse_number(match.group(group))
    return Part(role, number.shifted(match.start(group))) if number else None


def _intervals(text: str) -> list[Statement]:
    found = []
    for match in INTERVAL.finditer(text):
        parts = [_read(text, name, match, name) for name in ("level", "low", "high")
                 if match.group(name)]
        found.append(Statement(tuple(p for p in parts if p), match.start(), match.end()))
    for match in LEVEL_ONLY.finditer(text):
        if not _overlaps(match.start(), match.end(), found):
            part = _read(text, "level", match, "level")
            found.append(Statement((part,), match.start(), match.end()))
    return found


PARTIAL = re.compile(r"\b(?:first|last|other|remaining|additional|extra|more|new|those|these|"
                     r"two|few|some)\s*$", re.IGNORECASE)
# a change by a factor, not a count of runs: "rose 2-fold", "improved by 3-fold"
CHANGED_BY = re.compile(r"\b(?:rose|rises|grew|grows|increased?|improved?|dropped|fell|"
                        r"decreased?|reduced?)\s+(?:by\s+)?(?:about\s+|roughly\s+|~\s*)?$",
                        re.IGNORECASE)


def _seed_counts(text: str, taken: list[Statement]) -> list[Statement]:
    """``3 seeds``, ``five runs``, ``seeds: 5`` — not ``the first three seeds`` (a subset)."""
    found = []
    for match in SEEDS.finditer(text):
        if PARTIAL.search(text[:match.start()]) or CHANGED_BY.search(text[:match.start()]):
            continue
        group = next(name for name in ("n", "n2", "n3", "n4", "n5") if match.group(name))
        word = match.group(group)
        count = WORDS.get(word.lower()) or int(word)
        number = Number(match.group(0), float(count), 0, "", False, 1.0,
                        match.start(group), match.end(group))
        if not _overlaps(match.start(), match.end(), taken):
            found.append(Statement((Part("seeds", number),), match.start(), match.end()))
    return found


def _overlaps(start: int, end: int, statements: list[Statement]) -> bool:
    return any(start < other.end and other.start < end for other in statements)


# Units a metric may be measured in (its id says so: latency_ms, train_time_h, memory_gb).
MEASURES = {"ms": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
            "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h",
            "hrs": "h", "hour": "h", "hours": "h", "gb": "gb", "gib": "gb", "mb": "mb",
            "mib": "mb", "w": "w", "\u00b0": "deg", "deg": "deg", "degree": "deg", "degrees": "deg",
            "rad": "rad", "radian": "rad", "radians": "rad"}


def measure(word: str) -> str:
    """The canonical unit of ``word`` (``hours`` → ``h``), or "" if no metric is measured in it."""
    return MEASURES.get(word.strip().lower(), "")


def _unit(text: str, number: Number) -> str | None:
    """The unit written after ``number``: None if none, "" if one no metric is measured in."""
    match = UNIT.match(text, number.end)
    return measure(match.group(0)) if match else None


# "3× fewer", "1.9x faster": a ratio, which a relative change may state.
RATIO = re.compile(r"\s?(?:x|\u00d7)\s+(?P<word>fewer|less|smaller|lower|cheaper|faster|more|"
                   r"larger|bigger|greater|higher|slower)\b", re.IGNORECASE)
RATIO_UP = {"more", "larger", "bigger", "greater", "higher", "slower"}


def ratio_form(text: str, number: Number) -> frozenset[str]:
    """``{"ratio", "difference", "up"/"down", "word:<word>"}`` for ``3× fewer``, else empty."""
    match = RATIO.match(text, number.end)
    if match is None:
        return frozenset()
    word = match.group("word")
    name = "up" if word.lower() in RATIO_UP else "down"
    return frozenset({"ratio", "difference", name, f"word:{word}"})


def _is_result(text: str, number: Number, integers: bool) -> bool:
    """A number that states a result: not a reference, an amount of money, a count of things
    (epochs, GPUs, images), a test's setting (power, alpha, a p-value) or a weight, and not a
    bare integer unless ``integers`` (a table cell under a seed-count header) or it has a
    spread; a ratio (``3× fewer``) is."""
    before = text[:number.start]
    if RATIO.match(text, number.end) and not REFERENCE.search(before[-40:]):
        return True
    if REFERENCE.search(before[-40:]) or MONEY.search(before) or _unit(text, number) == "" \
            or FUNCTION_BEFORE.search(before[-8:]):
        return False
    if TEST_SETTING_BEFORE.search(before[-30:]) or TEST_SETTING_AFTER.match(text, number.end) \
            or WEIGHT_BEFORE.search(before[-12:]):
        return False
    if number.multiplier != 1.0 and COUNTED_LATER.match(text, number.end):
        return False
    # an integer with its spread is measured, not counted ("897 ± 64 collisions")
    return integers or not number.integer or SPREAD.match(text, number.end) is not None


def _with_points(text: str, number: Number) -> tuple[Number, int]:
    match = POINTS.match(text, number.end)
    if match is None or number.percent:
        return number, number.end
    return replace(number, percent=True, text=number.text + " pp"), match.end()


# a value's asymmetric interval as offsets above and below it (LaTeX ``31\% {~}^{+10\%}_{-8\%}``,
# read ``31% ^+10%_-8%``): what bounds it, no result of its own
OFFSET = r"\d[\d.,]*(?:\s?%|\s?[\u00b7\u00d7]\s?10\^[-\u2212]?\d+)?"
OFFSETS = re.compile(rf"\s*\^\s*\+\s*(?P<above>{OFFSET})\s*_\s*[-\u2212]\s*(?P<below>{OFFSET})")


def _value(text: str, number: Number) -> Statement:
    number, end = _with_points(text, number)
    parts = [Part("value", number)]
    spread, offsets = SPREAD.match(text, end), OFFSETS.match(text, end)
    if spread:
        parts.append(_read(text, "num" if spread.group("num") else "worded", spread, "spread"))
        end = spread.end()
    elif offsets:
        parts += [_read(text, name, offsets, name) for name in ("above", "below")]
        end = offsets.end()
    ratio = ratio_form(text, number)
    if ratio:
        return Statement(tuple(parts), number.start, end, ratio)
    unit = _unit(text, number)
    form = value_form(text, parts[0].number) | ({f"unit:{unit}"} if unit else set())
    return Statement(tuple(p for p in parts if p), number.start, end, frozenset(form))


def value_form(text: str, number: Number) -> frozenset[str]:
    """How a value is written: ``signed``; ``difference`` (a ``+`` sign, ``pp``, after ``by`` or
    a difference noun); the word giving a difference its direction (``up``, ``down``,
    ``better``, ``worse``, and ``word:<the word>``); its role in ``from X to Y`` (``from``,
    ``to``)."""
    before = text[max(0, number.start - 80):number.start]
    leading = before[:TRAILING_FILLER.search(before).start()]
    form = {"signed"} if number.sign else set()
    if (number.sign == "+" or number.text.endswith("pp") or BY.search(leading)
            or DIFFERENCE_NOUN.search(leading) or BY_LIST.search(before)
            or NOUN_LIST.search(before)):
        form.add("difference")
    after = text[number.end:number.end + 30]
    return frozenset(form | direction_words(before, after) | _from_to(leading) | _bound(before))


# a bound, not a value: "more than 50%", "at least 0.9", ">66.0%", "less than 1%"
LOWER_BOUND = re.compile(r"(?:\b(?:more|greater|higher)\s+than|\bat\s+least|\bexceed(?:s|ing)?|"
                         r"[>\u2265]|\\geq?)\s*[~\u2248]?\s*$", re.IGNORECASE)
UPPER_BOUND = re.compile(r"(?:\b(?:less|lower|fewer)\s+than|\bat\s+most|[<\u2264]|\\leq?)"
                         r"\s*[~\u2248]?\s*$", re.IGNORECASE)


def _bound(before: str) -> set[str]:
    """``bound:low`` after ``more than``, ``bound:high`` after ``less than``: the number is a
    bound the value must keep, not the value."""
    return {"bound:low"} if LOWER_BOUND.search(before) else {"bound:high"} if \
        UPPER_BOUND.search(before) else set()


END = r"[-+\u2212]?\d[\d.,]*\s?%?"  # a range's end; slashed ends each their own (``8.4%/0.49``)
# a range's lower end follows (or the next of its slashed ends: ``from 8.4%/``)
FROM_BEFORE = re.compile(rf"\bfrom(?:\s+{END}\s*/)*\s*$", re.IGNORECASE)
TO_BEFORE = re.compile(rf"\bfrom\s+{END}(?:\s*/\s*{END})*\s*to(?:\s+{END}\s*/)*\s*$",
                       re.IGNORECASE)


def _from_to(stripped: str) -> set[str]:
    if FROM_BEFORE.search(stripped):
        return {"from"}
    if TO_BEFORE.search(stripped):
        return {"to"}
    return set()


def _attach(statements: list[Statement], text: str) -> list[Statement]:
    """An interval or level right after a value (nothing but words between) qualifies it."""
    merged: list[Statement] = []
    for statement in sorted(statements, key=lambda s: s.start):
        previous = merged[-1] if merged else None
        if (previous is not None and previous.part("value") and statement.part("seeds") is None
                and statement.part("value") is None and previous.part("low") is None
                and _linked(text[previous.end:statement.start])
                and _brackets(statement, previous.part("value").number)):
            merged[-1] = replace(previous, parts=previous.parts + statement.parts,
                                 end=statement.end)
        else:
            merged.append(statement)
    return merged


def _brackets(statement: Statement, value: Number) -> bool:
    """Whether an interval holds the value it would qualify, in the value's scale or as a
    percentage's fraction (``93.4% [0.92, 0.95]``): ``model [2,3]`` cites two papers."""
    low, high = statement.part("low"), statement.part("high")
    if low is None or high is None:
        return True
    bounds = sorted((low.number.value, high.number.value))
    return any(bounds[0] - 1e-9 <= value.value * scale <= bounds[1] + 1e-9
               for scale in (1.0, 0.01, 100.0))


def _linked(between: str) -> bool:
    return len(between) <= 40 and not re.search(r"\d|[.!?]\s", between)


def _bare_intervals(text: str, taken: list[Statement]) -> list[Statement]:
    """``[0.71, 1.18]`` on its own (a CI column's cell, or after its value's words); not
    references cited by number (``the Li-GRU model [2,3]``)."""
    found = []
    for match in BRACKETS.finditer(text):
        if not _overlaps(match.start(), match.end(), taken) and not REFERENCES.fullmatch(
                match.group(0).strip()):
            parts = (_read(text, "low", match, "low"), _read(text, "high", match, "high"))
            found.append(Statement(tuple(p for p in parts if p), match.start(), match.end()))
    return found


def find_statements(text: str, integers: bool = False) -> list[Statement]:
    """Every statement in ``text``, in order (bare integers too when ``integers``)."""
    taken = _intervals(text)
    taken += _bare_intervals(text, taken)
    taken += _seed_counts(text, taken)
    for number in find_numbers(text):
        if not _overlaps(number.start, number.end, taken) and _is_result(text, number, integers):
            statement = _value(text, number)
            if not _overlaps(statement.start, statement.end, taken):
                taken.append(statement)
    return _attach(taken, text)
