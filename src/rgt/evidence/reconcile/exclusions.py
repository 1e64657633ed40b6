"""Numbers in a document that are no claim's, whatever names them: one seed's or epoch's, an
ablation's, a superseded one, one quoted from a citation or labelled as the paper's, an end of
a range, one of a list of results, a share worked out in place from two counts."""

from __future__ import annotations

import re

from rgt.evidence.reconcile.numbers import find_numbers
from rgt.evidence.reconcile.sites import Level, Site
from rgt.evidence.reconcile.statistics import FROM_BEFORE
from rgt.evidence.reconcile.vocabulary import OTHER, Vocabulary

PER_POINT = re.compile(
    # "seed 2", "run 3" is one run; "we run 5 trials" counts them; "--epoch 14" is a
    # command's option (how long it trained), no point of a run
    r"(?:\b(?:seed|run|fold|trial|checkpoint)|(?<!--)\b(?:epoch|step|iteration))\s*#?\s*\d+\b"
    r"(?!\s+(?:seeds?|runs?|trials?|folds?|times)\b)|"
    # "the median run" is one run; "the median of 5 runs" aggregates them
    r"\b(?:best|worst|median|last|final)(?!\s+of\s+(?:\d+|all|two|three|four|five|ten)\b)"
    r"(?:[\s-]+[\w-]+){0,2}?[\s-]+"
    r"(?:seed|run|checkpoint|epoch|fold)s?\b|"
    r"\b(?:each|every|individual|per)[\s-]+(?:seed|run|checkpoint|epoch|fold)s?\b",
    re.IGNORECASE)
# An ablation's number is another configuration's: "removing X lowers accuracy to 89.4%".
ABLATION = re.compile(r"\b(?:ablat\w*|w/o|removing|replacing|swapping)\b", re.IGNORECASE)
# A citation (``[3]``, ``[2, 5]``, ``et al``, ``(He et al., 2016)``, ``(Qiu et al, WSDM'18)``,
# ``(Tang et al, Data Min Knowl Disc (2011))``); a bracketed date
# (``[2021-06-20]``, opening a news line) and a setting's list of values
# (``RESNET_NUM_BLOCKS=[3,4,23,3]``) cite nothing
CITATION = re.compile(
    r"(?<![=:])\[(?!\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\])\d+(?:\s*[,\u2013-]\s*\d+)*\]|\[cite\]|"
    r"\bet\s+al\b|"
    r"\b[\w-]+['\u2019]s\s+(?:repo|repository|implementation|fork|code\s*base)\b|"
    r"\([A-Z][\w\-]+(?:\s+(?:et\s+al\.?|and|&)\s*[A-Z]?[\w\-]*)?,?\s+\d{4}[a-z]?\)|"
    r"\([A-Z][\w\-]+\s+et\s+a[lt]\.?,\s*(?:[^()]|\([^()]*\))*?(?:['\u2019]\d{2}|\(?\d{4}\)?)\)")

INTRO = 40  # "At epoch 100, …": a short opening phrase scopes its sentence
LIST_GAP = re.compile(r"\s*(?:,|;|,?\s*and)\s*", re.IGNORECASE)
OR_GAP = re.compile(r"%?\s+or\s+", re.IGNORECASE)  # alternatives: "5 or 10 trials"


def in_a_list(site: Site) -> bool:
    """A number among three or more joined by commas alone (``{60.6, 60.7, 61.1}``), or one
    of alternatives (``5 or 10 trials``): each run's result, or several things' — unless
    ``respectively`` pairs them with names."""
    sentence = site.level("sentence")
    if sentence is None or "respectively" in sentence.text.lower():
        return False
    numbers = find_numbers(sentence.text)
    at = next((i for i, n in enumerate(numbers) if n.start == sentence.anchor), None)
    if at is None:
        return False
    if any(OR_GAP.fullmatch(sentence.text[numbers[i].end:numbers[i + 1].start])
           for i in (at - 1, at) if 0 <= i < len(numbers) - 1):
        return True
    first, last = at, at
    while first > 0 and LIST_GAP.fullmatch(sentence.text[numbers[first - 1].end:
                                                          numbers[first].start]):
        first -= 1
    while last + 1 < len(numbers) and LIST_GAP.fullmatch(sentence.text[numbers[last].end:
                                                                       numbers[last + 1].start]):
        last += 1
    return last - first >= 2


# a result a later one replaced: "(previously, it was 94.9)", "before the fix"
SUPERSEDED = re.compile(r"\b(?:previously|formerly|originally|before\s+(?:the|this|our)\s+"
                        r"(?:fix|bug\s*fix|update|change|correction)|used\s+to\s+be)\b", re.I)
LEAD = 25  # the end of the text before a clause that may qualify it: "(previously, "
LIST_LEAD = 60  # and before a list's first number: "were previously incorrectly reported as"


# a number the original paper reports, labelled so: "(paper: 0.815)"
THE_PAPERS = re.compile(r"\b(?:paper|papers|reported|official|published)\s*[:=]\s*$", re.I)
# a range's ends: "81.2-82.1", "between 84% and 88%", "52.1 ~ 52.6" (a tilde between two
# numbers; before one alone it says "about")
RANGE_BEFORE = re.compile(r"\d[-\u2013]$|\d\s*%?\s*[~\uff5e\u301c]\s*$|"
                          r"\bbetween\s+(?:[\d.,]+\s*%?\s+and\s+)?$", re.I)
DASH_AFTER = re.compile(r"[-\u2013]\d|\s*%?\s*[~\uff5e\u301c]\s*\d")
AND_AFTER = re.compile(r"\s*%?\s+and\s+[\d.,]+")
BETWEEN = re.compile(r"\bbetween\s+$", re.I)
# "around 74.0 to 74.5", "0.1% to 0.5% lower": a range, unless it is a change "from" one
TO_AFTER = re.compile(r"\s*%?\s+to\s+[-+]?\d")
TO_BEFORE = re.compile(r"(?P<first>[-+]?\d[\d.,]*)\s*%?\s+to\s+$")


def in_a_range(site: Site) -> bool:
    """One end of a range (``~81.9 (81.2-82.1)``, ``between 84% and 88%``): the spread of
    runs, not a result. Read in the clause and the sentence."""
    width = len(site.statement.parts[0].number.text)
    return any(level.anchor is not None and _range_end(level.text, level.anchor,
                                                       level.anchor + width)
               for level in site.levels[:2])


def _range_end(text: str, start: int, end: int) -> bool:
    before, after = text[:start], text[end:]
    return bool(RANGE_BEFORE.search(before) or DASH_AFTER.match(after)
                or (AND_AFTER.match(after) and BETWEEN.search(before))
                or _to_range_end(before, after))


def _to_range_end(before: str, after: str) -> bool:
    """An end of ``A to B`` (``around 74.0 to 74.5``), not of a change ``from A to B``."""
    if TO_AFTER.match(after):
        return not FROM_BEFORE.search(before)
    first = TO_BEFORE.search(before)
    return first is not None and not FROM_BEFORE.search(before[:first.start()])


# an aside giving the original paper's number: "(the WER in the paper is 6.7)"
OURS_WORD = re.compile(r"\b(?:our|ours|we|my|mine|I)\b")
PAPERS_ASIDE = re.compile(r"\b(?:in|by|from)\s+the\s+(?:original\s+)?paper\b|"
                          r"\bthe\s+paper['\u2019]s\b", re.I)


def the_papers(site: Site) -> bool:
    """A number labelled as the original paper's (``cora: 0.810 (paper: 0.815)``), or given in
    a parenthesis that says it is the paper's (``6.58 (the WER in the paper is 6.7)``)."""
    level = site.levels[0]
    if level.anchor is None:
        return False
    before = level.text[:level.anchor]
    aside = level.tier == "clause" and level.before.rstrip().endswith("(")
    return THE_PAPERS.search(before) is not None or (aside and PAPERS_ASIDE.search(before)
                                                     is not None)


# another work's model, or another work as the subject that reports (``they show … reaching``,
# ``Paper uses mean over 3 seeds``)
THEIRS = re.compile(r"\btheir\s+(?:\w+\s+)?(?:models?|methods?|approach(?:es)?|systems?|"
                    r"networks?|baselines?)\b|\b(?:they|(?:the\s+)?(?:original\s+)?(?:paper|"
                    r"authors))\s+(?:also\s+)?(?:show|report|obtain|achieve|reach|get|claim|"
                    r"use)\w*", re.IGNORECASE)


def presented_as_theirs(site: Site) -> bool:
    """Output that the paragraph presenting it gives as another work's (``The original paper
    reports the following results:`` over a log of its numbers)."""
    intro = site.level("intro")
    return intro is not None and THEIRS.search(intro.text) is not None and \
        OURS_WORD.search(intro.text) is None


# a heading over another work's numbers: "Reported Performance from PotentialNet paper [6]"
REPORTED_FROM = re.compile(r"\breported\b.*\b(?:from|in|by)\s+(?:the\s+)?(?:[\w-]+\s+)?"
                           r"(?:paper|\[\d+\])", re.IGNORECASE)


def under_theirs(site: Site) -> bool:
    """A table cell under a heading or caption that gives its numbers as another work's
    (``Reported Performance from PotentialNet paper [6]``, ``The best or average results
    reported in the paper:``, no word of ours)."""
    scope, caption = site.level("scope"), site.level("caption")
    heading = scope.text.rsplit(" / ", 1)[-1] if scope is not None else ""
    caption_text = caption.text if caption is not None else ""
    return site.in_table and (
        REPORTED_FROM.search(heading) is not None and OURS_WORD.search(heading) is None
        or REPORTED_FROM.search(caption_text) is not None and OURS_ANY.search(caption_text) is None)


# a sentence opening with a tool's name and ``result:`` (``SpeechBrain result: EER = 0.90%``)
ANOTHERS_RESULT = re.compile(r"^\s*([A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]\w*)\s+results?\s*:")


def labelled_as_anothers(site: Site, vocabulary: Vocabulary | None) -> bool:
    """A prose number whose sentence opens with another tool's name, written as tools' names
    are (``SpeechBrain``, ``ESPnet``), and ``result:``: that tool's, when the name is none of
    ours."""
    sentence = site.level("sentence")
    label = ANOTHERS_RESULT.match(sentence.text) if sentence and not site.in_table else None
    return label is not None and vocabulary is not None and not vocabulary.find(label.group(1))


OURS_ANY = re.compile(r"\b(?:our|ours|we|us)\b", re.IGNORECASE)  # "We compare … reported in …"


def excluded(site: Site, credited: bool = False, vocabulary: Vocabulary | None = None) -> bool:
    """One seed's (or epoch's) number, an ablation's, a superseded one, one quoted from a
    citation or labelled as the paper's (or under a heading that says so), an end of a range,
    or one of a list of results: not a claim's. Looked for in the clause (or cell and row), a
    short opening phrase before it, a citation right after it (``95.3% (He et al., 2016)``),
    the sentence. ``credited``: the row's citation credits a name of ours
    (``Chroma~\\cite{chroma}``, a feature the paper's own runs use), not the row's numbers,
    and so does one right after a run's name in prose (``obtained with the Li-GRU model
    [2,3]``). An ablation's word inside one of ``vocabulary``'s names (``w/o repeated aug``,
    an alias) names a run the evidence claims."""
    if in_a_list(site) or in_a_range(site) or the_papers(site) or _an_ablations_change(site) \
            or _a_computed_share(site) or _a_share_of_the_schedule(site) \
            or presented_as_theirs(site) or under_theirs(site) \
            or labelled_as_anothers(site, vocabulary) or _a_row_of_counts(site, vocabulary):
        return True
    near = [level for level in site.levels if level.tier in ("clause", "cell", "row")]
    for level in near:
        if _superseded(level.text + " " + _lead(level.before), vocabulary):
            return True
        intro = level.before if len(level.before) <= INTRO else ""
        outside = _outside_names(level.text + " " + intro, vocabulary)
        if (PER_POINT.search(outside) or ABLATION.search(outside)
                or CITATION.search(_uncredited(level, vocabulary))
                and not (credited and level.tier == "row")):
            return True
        if CITATION.match(level.after.lstrip(" (")) or CITATION.match(level.after.lstrip()):
            return True
    return False


# "for 30% of training": how much of the schedule a method ran for, a setting
SCHEDULE_SHARE = re.compile(r"^\s*%?\s*(?:\\%\s*)?of\s+(?:the\s+)?(?:training|train(?:ing)?\s+"
                            r"(?:steps|epochs|time|run|budget)|epochs|steps|iterations|the\s+run)\b",
                            re.I)
SCHEDULE_LEAD = re.compile(r"\b(?:for|during|over|after|first|last)\s+(?:the\s+)?(?:first\s+|"
                           r"last\s+)?$", re.I)


def _a_share_of_the_schedule(site: Site) -> bool:
    """A percentage of the training a method ran for (``running Sequence Length Warmup for
    30% of training``, ``during the first 10% of epochs``): a setting, no result."""
    clause = _prose_clause(site)
    if clause is None:
        return False
    after = clause.text[clause.anchor + site.statement.end - site.statement.start:]
    return bool(SCHEDULE_SHARE.match(after)) and bool(
        SCHEDULE_LEAD.search(clause.text[:clause.anchor]))


# "(89/119 = 75%)": a share worked out from the counts before it
COUNTS_RATIO = re.compile(r"\b\d+\s*/\s*\d+\s*(?:=|\\approx|\u2248)\s*$")


def _a_computed_share(site: Site) -> bool:
    """A number worked out in place from two counts (``89/119 = 75%``): a tally of the
    text's own, no claim's measurement."""
    clause = _prose_clause(site)
    return clause is not None and COUNTS_RATIO.search(clause.text[:clause.anchor]) is not None


# a row label saying its cells count things: "Labeled \\#body rollover", "No. of images"
COUNT_LABEL = re.compile(r"(?:^|[\s(])(?:\\?#|no\.\s|number\s+of\b|count\s+of\b)", re.I)


def _a_row_of_counts(site: Site, vocabulary: Vocabulary | None) -> bool:
    """A whole number in a table row whose label says it counts (``Labeled \\#body
    rollover``: ``231``, above a row of accuracies) and names no metric: a tally, no result."""
    row = site.level("row")
    part = site.statement.part("value")
    if row is None or part is None or not COUNT_LABEL.search(row.text) or \
            part.number.decimals or part.number.percent:
        return False
    # a metric's own name (``#Params``), not a run's whose claims share a metric
    return vocabulary is None or not any("metric" in hit.facets and not {"exp", "variant"} & set(
        hit.facets) for hit in vocabulary.find(row.text))


def _prose_clause(site: Site) -> Level | None:
    """A prose number's clause, where it says where the number sits; none in a table."""
    clause = site.levels[0] if site.levels else None
    return None if clause is None or clause.anchor is None or site.in_table else clause


def _uncredited(level: Level, vocabulary: Vocabulary | None) -> str:
    """A clause's text without the citations right after one of the evidence's run names
    that follows its number: they credit the name's origin (``14.2% is obtained with the
    Li-GRU model [2,3]``), not the number (``CutMix [4] reaches 96.1%`` is the paper's)."""
    text = level.text
    if vocabulary is None or level.tier != "clause" or level.anchor is None:
        return text
    ends = {hit.end for hit in vocabulary.find(text) if hit.start > level.anchor and (
        hit.facets.get("own") or hit.facets.get("variant", {OTHER}) - {OTHER})}
    return CITATION.sub(lambda match: " " if len(text[:match.start()].rstrip(" ~")) in ends
                        else match.group(0), text)


# the numbers listed before one in a list: "reported as 96.95, 97.17, and …"
LISTED_BEFORE = re.compile(r"(?:[-+\u2212]?\d[\d.,]*\s*%?\s*(?:,|;|,?\s*and)\s*)+$", re.I)


def _lead(before: str) -> str:
    """The end of the text before a clause that may qualify it; in a list, the end of the
    text before its first number (``These values were previously incorrectly reported as
    96.95, `` before ``97.17``): what opens the list qualifies each of its numbers."""
    lead = LISTED_BEFORE.sub("", before)
    return lead[-LIST_LEAD:] if lead != before else before[-LEAD:]


def _superseded(text: str, vocabulary: Vocabulary | None) -> bool:
    """Whether ``text`` calls its number a superseded one (``(previously, it was 94.9)``);
    not the number of a run named right before the word (``AutoGluon 0.8 previously took
    first place 48% of the time``: the older version's own figure, which the evidence holds)."""
    found = SUPERSEDED.search(text)
    if found is None:
        return False
    return vocabulary is None or not any(
        "variant" in hit.facets and not text[hit.end:found.start()].strip()
        for hit in vocabulary.find(text[:found.start()]))


def _outside_names(text: str, vocabulary: Vocabulary | None) -> str:
    """``text`` with the names ``vocabulary`` finds in it blanked out."""
    return text if vocabulary is None else vocabulary.blanked(text)


def _an_ablations_change(site: Site) -> bool:
    """A difference in a sentence that removes a part before it (``By removing the prior …
    we got a worsening of 9%, while on ReferIt … the worsening is of 18.5%``): the ablated
    run against ours, the other way round from the comparison's candidate − baseline."""
    sentence = site.level("sentence")
    return (not site.in_table and sentence is not None and sentence.anchor is not None
            and site.statement.form & {"difference", "better", "worse", "up", "down"}
            and ABLATION.search(sentence.text[:sentence.anchor]) is not None)
