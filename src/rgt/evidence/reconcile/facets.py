"""What the text around a statement names, facet by facet.

For each facet (metric, split, variant, experiment; and how a number relates to them: a
difference, a spread, a header's role) the levels of a site are searched in order (clause →
sentence → earlier sentences → headings; cell → column → row → caption → headings); the first
level naming the facet decides it, by the name nearest the number there (every name, for a
header, caption or heading). What an alias only implies counts where no level names the facet
outright. A table's variant comes from its row or column only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import combinations

from rgt.evidence.reconcile.exclusions import CITATION, LEAD, THEIRS
from rgt.evidence.reconcile.sites import Level, Site
from rgt.evidence.reconcile.statistics import find_statements
from rgt.evidence.reconcile.text import fold, sentence_spans
from rgt.evidence.reconcile.vocabulary import OTHER, Hit, Vocabulary, runs_of

FACETS = ("metric", "split", "variant", "exp", "dispersion", "role", "kind")


@dataclass(frozen=True)
class Facet:
    """A decided facet: its values, and whether a strong level (clause, cell, row) named it."""

    values: frozenset[str]
    strong: bool
    tier: str = ""
    named: frozenset[str] = frozenset()  # every value the deciding level names


def _distance(hit: Hit, start: int, end: int) -> int:
    return max(0, start - hit.end, hit.start - end)


def named_values(hits: list[Hit], facet: str) -> frozenset[str]:
    """Every value of ``facet`` the hits name."""
    return frozenset().union(*(hit.facets[facet] for hit in hits))


# a contrast between a run named earlier in the sentence and the number: "with k = 100 … is
# good enough, while decreasing k resulted in … 51%" (another run's number); a comma makes
# "while" a contrast, not "… with an ECE of 2.37% while keeping 95.80% accuracy" (the same
# run's, at the same time)
CONTRAST = re.compile(r",\s*while\s|\s(?:whereas|but|conversely|instead)\s", re.IGNORECASE)
# the run a number is set against, after it: "My error turned out to be 5.1%, compared to
# GoogLeNet error of 6.8%" (GoogLeNet's is the 6.8), "a higher correlation (66.4) than
# humans themselves (65.7)"
COMPARED_TO = re.compile(r"\b(?:compared\s+(?:to|with)|as\s+opposed\s+to|versus|than)\s",
                         re.IGNORECASE)
# ours called the state of the art, no other system: "CenterPoint achieved state-of-the-art
# performance … with 65.5 NDS", "sets a new SOTA", "SOTA results are achieved on …"
SOTA = r"(?:state[\s-]+of[\s-]+the[\s-]+art|sota)"
CLAIMED_SOTA = re.compile(
    rf"\b(?:achiev|reach|obtain|attain|set|establish)\w*\s+(?:(?:an?|the)\s+)?(?:new\s+)?{SOTA}"
    rf"|\bnew\s+{SOTA}|\b{SOTA}\s+(?:performance|results?|accurac(?:y|ies))\s+(?:is|are|was|were)"
    r"\s+(?:achieved|obtained|reached|attained)\b", re.IGNORECASE)


def _pick(hits: list[Hit], facet: str, level: Level, width: int,
          implied: bool) -> Facet | None:
    relevant = [hit for hit in hits if facet in hit.facets
                and (facet in hit.implied) == implied]
    if facet == "dispersion" and level.tier in ("clause", "sentence"):
        # prose finds intervals by their form; a "CI" nearby says nothing about a ± spread
        relevant = [hit for hit in relevant if hit.facets[facet] - {"ci"}]
    if facet == "dispersion":
        # a run's name is no statistic: ``Smooth (SE-1.0)``, the squared-exponential kernel
        relevant = [hit for hit in relevant if "variant" not in hit.facets]
    if facet == "variant" and level.tier == "sentence" and level.anchor is not None:
        spans = asides(level)
        relevant = [hit for hit in relevant if not _aside(spans, hit)
                    and not CONTRAST.search(level.text, hit.end, level.anchor)
                    and not COMPARED_TO.search(level.text, level.anchor, hit.start)]
    if facet == "variant":
        relevant = [hit for hit in relevant if not _ours_the_state_of_the_art(level.text, hit)]
    if facet == "split" and level.tier in ("scope", "corner"):
        relevant = [hit for hit in relevant
                    if not _an_activity(level.text, hit, hits, level.tier == "corner")]
    if facet == "metric" and level.tier == "caption":
        spans = sentence_spans(level.text, [])
        relevant = _outside_other_parts(
            level.text, spans, _outside_notes(level.text, spans, relevant), hits)
    if facet in ("split", "metric") and level.tier in ("caption", "scope", "paragraph"):
        relevant = [hit for hit in relevant if not _a_selection_s(level.text, hit)]
    if facet == "split":  # "40 additional hours of training": time spent, not the train split
        relevant = [hit for hit in relevant if not DURATION_OF.search(fold(level.text)[:hit.start])
                    and not _trains_something(level.text, hit)
                    and not _in_a_reference(level.text, hit)
                    and not (level.tier == "caption" and _an_amount_of_data(level.text, hit))]
    if not relevant:
        return None
    nearest = relevant
    if level.anchor is not None:
        start, end = level.anchor, level.anchor + width
        governing = _governing(relevant, level, hits, end) if facet == "metric" else (
            _set_against(relevant, level, hits, end) or _listed_under(relevant, level)
        ) if facet == "variant" else None
        closest = min(_distance(hit, start, end) for hit in relevant)
        nearest = governing or [hit for hit in relevant
                                if _distance(hit, start, end) == closest]
    return Facet(named_values(nearest, facet), level.strong, level.tier,
                 named_values(relevant, facet))


def _ours_the_state_of_the_art(text: str, hit: Hit) -> bool:
    """Whether ``hit`` is the words *state of the art* (or *SOTA*) in a phrase that gives the
    title to the text's own run (``achieved state-of-the-art performance``)."""
    return hit.facets.get("variant") == {OTHER} and any(
        found.start() <= hit.start and hit.end <= found.end()
        for found in CLAIMED_SOTA.finditer(text))


# a caption's sentence about marked cells: "``-'' indicates that …", "Bold numbers denote …"
MARK_NOTE = re.compile(r"\s*(?:[`'\"]*[^\w\s`'\"]{1,3}[`'\"]*|(?:bold|underlined?|italics?|"
                       r"gr[ae]y)(?:\s+\w+)?)\s+(?:indicates?|denotes?|means?|marks?)\b", re.I)


def _outside_notes(caption: str, spans: list[tuple[int, int]], hits: list[Hit]) -> list[Hit]:
    """The hits outside a caption's notes on marked cells (of its sentences' ``spans``), when
    it has any others: a note (``"-" indicates that RELAX achieved lower validation scores``)
    says what a mark means, not what the cells are."""
    notes = [(start, end) for start, end in spans if MARK_NOTE.match(caption, start)]
    kept = [hit for hit in hits if not any(start <= hit.start < end for start, end in notes)]
    return kept or hits


# a caption's sentence on one part of a table: "For retrieval tasks, we show MAP."
FOR_PART = re.compile(r"\s*For\s+([^,.]+),", re.IGNORECASE)


def _outside_other_parts(caption: str, spans: list[tuple[int, int]], relevant: list[Hit],
                         hits: list[Hit]) -> list[Hit]:
    """The hits outside a caption's sentences (``spans``) on another part of the table than
    the one its opening names (``Classification tasks`` of a subtable, then the whole table's
    ``… For retrieval tasks, we show MAP.``): what the other part's numbers are, not this
    one's."""
    own = _claims_within(hits, *spans[0]) if spans else set()
    others = [(start, end) for start, end in spans[1:] if own and (
        part := FOR_PART.match(caption, start)) and (
        named := _claims_within(hits, *part.span(1))) and not named & own]
    return [hit for hit in relevant if not any(start <= hit.start < end for start, end in others)]


def _claims_within(hits: list[Hit], start: int, end: int) -> set[str]:
    return {claim for hit in hits if start <= hit.start and hit.end <= end
            for claim in hit.facets.get("claims", ())}


DURATION_OF = re.compile(r"\b(?:hours?|hrs|days?|minutes?|epochs?|steps?|iterations?|time|"
                         r"budget|cost)\s+(?:of\s+)?$")


# "training multiple classifiers", "training the network": the verb and its object
AN_OBJECT = re.compile(r"\s+(?:a|an|the|our|their|its|each|every|all|multiple|several|many|"
                       r"various|different|\d+|two|three|four|five|ten)\s")
# "Training policies by performing longer rollouts": what is trained, and how
TRAINED_BY = re.compile(r"\s+[a-z]+\s+by\s+[a-z]+ing\b")


# a LaTeX reference as typeset here: its label names a section, no split (``[ref sec:training]``)
REFERENCE = re.compile(r"\[ref\s[^\]]*\]")


# a setting's name, assigned a value: ``PREPROC.TRAIN_SHORT_EDGE_SIZE=[500,800]``
SETTING_NAME = re.compile(r"[A-Za-z_][\w.]*=")


def _in_a_reference(text: str, hit: Hit) -> bool:
    """Whether ``hit`` is inside a reference's label (``see \\ref{sec:training}``) or a
    setting's name (``TRAIN_SHORT_EDGE_SIZE=``)."""
    return any(match.start() <= hit.start and hit.end < match.end()
               for pattern in (REFERENCE, SETTING_NAME) for match in pattern.finditer(text))


# "the training does not converge": training as what something happened to; "training and
# prediction scheme": one of two activities; "training using various settings": how it is done
A_VERB = re.compile(r"\s+(?:does|do|did|doesn't|don't|didn't|fails?|failed|diverges?|diverged|"
                    r"converges?|converged|takes|took|is|was|were|using|via|under|"
                    r"(?:and|or)\s+(?:prediction|"
                    r"inference|evaluation|testing|sampling|decoding))\b")


# "We train latent diffusion models", "models were trained", "to train": training as a verb
A_SUBJECT = re.compile(r"\b(?:we|i|they|you|to|was|were|is|are|be|been|being|have|has|had|"
                       r"[a-z]+'ve)\s+(?:[a-z]+ly\s+|not\s+|also\s+|first\s+)?$")


A_TIME = re.compile(r"\b(?:after|before|during|throughout|while|until)\s+$")
# "trained on ImageNet", "train on adversarial examples": the data it learns from, no split
ON_DATA = re.compile(r"\s+on\s+(?!(?:the\s+)?(?:train|training)\b)")


# how the runs were chosen, not what the numbers are: "best by validation NDCG@10", "selected
# on the validation set", "tuned on val"
SELECTED_BY = re.compile(r"\b(?:best|selected|chosen|picked|tuned|early[-\s]stopped|selection)\s+"
                         r"(?:by|on|using|with|against)\s+(?:the\s+)?(?:(?:val|validation|valid|"
                         r"dev|development)(?:\s+set)?\s+)?$")


def _a_selection_s(text: str, hit: Hit) -> bool:
    """A caption's split or metric that says how the runs were chosen (``best by validation
    NDCG@10``): the selection's, not the numbers' below."""
    return SELECTED_BY.search(fold(text)[:hit.start]) is not None


# an amount of training data, a setting: "1M (2.6G) tokenized training texts", "50K training
# images"
AMOUNT_BEFORE = re.compile(r"\d[\d.,]*\s*[kmbg]?(?:\s*\([^)]*\))?(?:\s+[a-z-]+){0,2}\s+$")
TRAINING_DATA = re.compile(r"\s+(?:texts?|data|examples?|samples?|images?|sentences?|documents?|"
                           r"tokens?|corpus|corpora|pairs?|utterances?|hours)\b")


def _an_amount_of_data(text: str, hit: Hit) -> bool:
    """A caption's amount of training data (``with 1M (2.6G) tokenized training texts``): how
    the table's runs were set up, not the split of its numbers."""
    folded = fold(text)
    return hit.facets.get("split") == {"train"} and AMOUNT_BEFORE.search(
        folded[:hit.start]) is not None and TRAINING_DATA.match(folded, hit.end) is not None


def _trains_something(text: str, hit: Hit) -> bool:
    """``Results of training multiple classifiers``, ``the training do not converge``,
    ``training and prediction scheme``, ``We train latent diffusion models``, ``Training
    policies by performing longer rollouts``: the activity, not the training split."""
    folded = fold(text)
    if hit.facets.get("split") != {"train"}:
        return False
    if A_SUBJECT.search(folded[:hit.start]) and folded[hit.start:hit.end] in ("train", "trained"):
        return True
    if A_TIME.search(folded[:hit.start]) and not SPLIT_NOUN.match(folded[hit.end:]):
        return True  # "the validation result after training": when, not which split
    if ON_DATA.match(folded, hit.end):
        return True  # "i=train on in-to-out adversarial examples": what it learns from
    return folded[hit.start:hit.end].endswith("ing") and any(
        pattern.match(folded, hit.end) for pattern in (AN_OBJECT, TRAINED_BY, A_VERB))


HEADING_START = re.compile(r"(?:^|/)\s*(?:how\s+to\s+)?$")
WORD_FOLLOWS = re.compile(r"\s+[a-z]")
HEADING_END = re.compile(r"\s*(?:/|$)")
# what a heading's "Training …" may be about that is a split: its set, its numbers
SPLIT_NOUN = re.compile(r"\s*(?:set|split|data|subset|results?|curves?|metrics?|scores?)\b")


def _an_activity(text: str, hit: Hit, hits: list[Hit], header: bool = False) -> bool:
    """A heading that opens with training as what it is about (``Train CIFAR10 with PyTorch``,
    ``How to train``, ``Training on ImageNet``) or closes on a way of training (``Quantization
    Aware Training``), or a header of a setting (``Training modality``), names the activity,
    not the training split, unless what follows is the split's set or numbers (``Training
    set``, ``Training loss``) — a header's set is what its rows were trained on."""
    folded = fold(text)
    opens = WORD_FOLLOWS.match(folded, hit.end) if header else HEADING_START.search(
        folded[:hit.start]) or (hit.facets.get("split") == {"train"} and HEADING_END.match(
            folded, hit.end))
    if not opens:
        return False
    follows = next((other for other in hits if other.start >= hit.end), None)
    names_a_metric = follows is not None and "metric" in set(follows.facets) - follows.implied \
        and not folded[hit.end:follows.start].strip()
    # a corner's ``Training Set`` heads the rows' training data, not the split of their numbers
    return (header or not SPLIT_NOUN.match(folded[hit.end:])) and not names_a_metric


def asides(level: Level) -> list[tuple[int, int]]:
    """The spans of the parentheses of ``level`` that do not hold the number: an aside names
    its own run (``85.5% … (85.4% in paper Table 1d)``)."""
    return [match.span() for match in re.finditer(r"\([^()]*\)", level.text)
            if level.anchor is None or not match.start() <= level.anchor < match.end()]


def without_asides(level: Level) -> str:
    """A sentence with its asides blanked out."""
    text = level.text
    for start, end in asides(level):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _aside(spans: list[tuple[int, int]], hit: Hit) -> bool:
    return any(start <= hit.start and hit.end <= end for start, end in spans)


# Between a number and the metric it states, in "96.13% (of the) test accuracy".
POSTFIX_GAP = re.compile(r"(?:\s|%|\bpp\b|\bpoints?\b|\bpercentage\b|\bof\b|\bthe\b|\ban?\b)*",
                         re.IGNORECASE)


def _governing(relevant: list[Hit], level: Level, hits: list[Hit], end: int) -> list[Hit]:
    """In prose, the metric a number states: named right after it (``96.13% test accuracy``,
    ``93.4% of the accuracy``; only other names between), else the nearest one before it —
    not a closer one that follows (``accuracy is 96.13% with an ECE of 1.84%``)."""
    if level.tier != "clause":
        return []
    after = sorted((hit for hit in relevant if hit.start >= end), key=lambda hit: hit.start)
    if after and _only_names_between(level.text, end, after[0].start, hits):
        return [after[0]]
    before = [hit for hit in relevant if hit.end <= end]
    return [max(before, key=lambda hit: hit.end)] if before else []


# Between a number and the run it is set against, in "a 99% win-rate vs LightGBM".
AGAINST_GAP = re.compile(r"[\s%]*(?:vs\.?|versus|against)\s+", re.IGNORECASE)


def _set_against(relevant: list[Hit], level: Level, hits: list[Hit], end: int) -> list[Hit]:
    """In a sentence, the run a number is a pairwise figure against, named right after it
    (``a 99% win-rate vs LightGBM and a 100% win-rate vs XGBoost``: XGBoost's 100%, not the
    nearer LightGBM before it); only names between the number and the ``vs``."""
    if level.tier != "sentence":
        return []
    after = sorted((hit for hit in relevant if hit.start >= end), key=lambda hit: hit.start)
    return [after[0]] if after and _only_names_between(
        level.text, end, after[0].start, hits, AGAINST_GAP) else []


def _listed_under(relevant: list[Hit], level: Level) -> list[Hit]:
    """In a sentence listing numbers under names and colons, parted by semicolons
    (``single models: 16.67mm (SD = 2.47mm) to 18.82mm ; general model: 16.17mm …``), the
    run whose colon opens the number's part, not a nearer one opening the next part."""
    if level.tier != "sentence" or level.anchor is None:
        return []
    part_start = level.text.rfind(";", 0, level.anchor) + 1
    part_end = level.text.find(";", level.anchor) % (len(level.text) + 1)
    opening = [hit for hit in relevant if part_start <= hit.start and hit.end <= level.anchor
               and level.text[hit.end:hit.end + 2].lstrip().startswith(":")]
    return [opening[-1]] if opening and any(
        level.text[hit.end:].lstrip().startswith(":") for hit in relevant
        if hit.start >= part_end) else []


def _only_names_between(text: str, start: int, stop: int, hits: list[Hit],
                        gap_form: re.Pattern = POSTFIX_GAP) -> bool:
    gap = list(text[start:stop])
    for hit in hits:
        for index in range(max(hit.start, start), min(hit.end, stop)):
            gap[index - start] = " "
    return gap_form.fullmatch("".join(gap)) is not None


def decide(site: Site, vocabulary: Vocabulary) -> dict[str, Facet]:
    """Each facet from the first level that names it; what an alias only implies (its claims'
    experiment, say) counts only where no level names the facet outright (a cell's words
    count first both ways; a clause's implied experiment before a farther level's)."""
    width = len(site.statement.parts[0].number.text)
    found: dict[str, Facet] = {}
    hits = [_level_hits(level, vocabulary) for level in site.levels]
    implied_here = _implied_in_clause(site, hits, width)
    dataset_here = _implied_in_clause(site, hits, width, datasets_only=True)
    labelled = _labelled(site.levels[0], hits[0], width) if site.levels else None
    labelled = labelled or _labelled_before_parenthesis(site, hits)
    # (a name its sentence gives it in turn decides over one written right after it)
    if labelled and site.level("turn") is None:
        found["metric"] = labelled
    for level, level_hits, implied in _in_order(site, hits):
        for facet in FACETS:
            if facet in found or (facet == "variant" and not _names_variants(level, site)):
                continue
            if facet in ("role", "kind", "dispersion") and not _reads(facet, level, site):
                continue
            picked = _pick(level_hits, facet, level, width, implied)
            if picked and facet == "metric" and level.tier == "caption" and not implied:
                picked = _ours_implied(level_hits, level, width, picked)
            if picked and facet == "exp" and implied_here and level.tier in FARTHER:
                picked = implied_here
            elif picked and facet == "exp" and dataset_here and level.tier == "sentence":
                picked = dataset_here
            if picked and not _a_heading_s_foreign_metric(facet, level, picked) \
                    and not _theirs_beside_ours(facet, level, picked, site):
                found[facet] = picked
    return _corner_disagrees(found, site, hits, width)


def _corner_disagrees(found: dict[str, Facet], site: Site, hits: list[list[Hit]],
                      width: int) -> dict[str, Facet]:
    """A table whose corner names runs (``DGX A100 80GB, FP16, 8x GPU``) over a column that
    names another (``Seed #3``, the best seed of a run on another machine): the cell is
    neither's, so it names no run at all."""
    variant = found.get("variant")
    if variant is None or variant.tier != "column":
        return found
    for level, level_hits in zip(site.levels, hits, strict=True):
        if level.tier != "corner":
            continue
        named = _corner_variants(level_hits, level, width)
        if named and OTHER not in named and not named & variant.values:
            return {**found, "variant": Facet(frozenset(), True, level.tier)}
    return found


def _corner_variants(hits: list[Hit], level: Level, width: int) -> frozenset[str]:
    """The runs a corner names: outright, or as the claims of an alias several runs share."""
    picked = _pick(hits, "variant", level, width, False)
    if picked:
        return picked.values
    return frozenset(claim.split("/")[1] for hit in hits
                     for claim in hit.facets.get("claims", ()) if claim.count("/") >= 3)


def _theirs_beside_ours(facet: str, level: Level, picked: Facet, site: Site) -> bool:
    """Another work named in the sentence only (``comparable to 86.3% reported in the
    original paper``) does not take a clause of ours (``We achieve 85.0% accuracy``)."""
    clause = site.levels[0]
    return facet == "variant" and level.tier == "sentence" and picked.values == {OTHER} \
        and clause.tier == "clause" and OURS.search(clause.text) is not None


FARTHER = ("paragraph", "intro", "caption", "scope")


def _level_hits(level: Level, vocabulary: Vocabulary) -> list[Hit]:
    """The names a level holds; a clause's include one that starts in it and runs on past
    its end (``27% stronger performance on melody transcription (as measured by F1) relative
    to handcrafted features``: one comparison's alias, cut by the parenthesis), cut there."""
    if level.tier != "clause" or not level.after:
        return vocabulary.find(level.text)
    size = len(level.text)
    return [replace(hit, end=min(hit.end, size))
            for hit in vocabulary.find(level.text + level.after) if hit.start < size]


def _implied_in_clause(site: Site, hits: list[list[Hit]], width: int,
                       datasets_only: bool = False) -> Facet | None:
    """The experiment a prose number's clause implies by an alias (``43% on imagenet1k
    italian``): it decides over one an earlier sentence or a heading names (ImageNet-1k),
    and, when the alias names no run (a dataset's name, not a run's whose claims are all on
    one experiment), over one its sentence's other clauses name (``75% … on HotpotQA and
    89% for NaturalQuestions``); not in the clause of the other side of a comparison (``vs
    21% for english B/32``)."""
    clause = site.levels[0] if site.levels else None
    if site.in_table or clause is None or clause.tier != "clause" or _after_vs(clause):
        return None
    named = [hit for hit in hits[0] if not datasets_only or "variant" not in hit.facets]
    return _pick(named, "exp", clause, width, True)


def _in_order(site: Site, hits: list[list[Hit]]) -> list[tuple[Level, list[Hit], bool]]:
    """The levels to read, each for what it names outright, then for what its aliases only
    imply; but a table cell's own words first for both (``88.2 Middle``, a part's number
    that its header names in turn: RACE's Middle set, not all of RACE that the header names),
    and so the name a sentence gives a number in turn (``5.655%/0.330 EER/minDCF``: the
    second is the minDCF, though its clause names both)."""
    pairs = list(zip(site.levels, hits, strict=True))
    cell = bool(pairs) and pairs[0][0].tier == "cell"
    own = [pair for index, pair in enumerate(pairs)
           if (index == 0 and cell) or pair[0].tier == "turn"]
    return [(*pair, implied) for pair in own for implied in (False, True)] + [
        (level, level_hits, implied) for implied in (False, True)
        for level, level_hits in pairs if (level, level_hits) not in own]


def _ours_implied(hits: list[Hit], level: Level, width: int, picked: Facet) -> Facet:
    """A caption naming only other systems' metrics outright (``CLIP (oracle with 2x
    params)``) but one of ours by an alias (``Linear probing accuracy``): ours."""
    if not all(value.startswith("@") for value in picked.values):
        return picked
    ours = _pick(hits, "metric", level, width, True)
    return ours if ours and not all(value.startswith("@") for value in ours.values) else picked


LABEL_GAP = re.compile(r"[\s:=]{0,3}")


def _labelled(level: Level, hits: list[Hit], width: int) -> Facet | None:
    """In prose, the metric whose name labels the number right before it, as a log line or a
    list does (``Acc@1 83.664 Acc@5 96.530``, ``loss: 0.731``): it decides, whether the name
    says the metric outright or an alias only implies it. Else the metric written right
    after the number, as its unit (``37.6 AP and 40 FPS``): it decides too, though the
    sentence names another outright, but binds weakly when only implied (no run named)."""
    if level.tier != "clause" or level.anchor is None:
        return None
    before = [hit for hit in hits if "metric" in hit.facets and hit.end <= level.anchor
              and LABEL_GAP.fullmatch(level.text[hit.end:level.anchor])]
    if before:
        values = frozenset(before[-1].facets["metric"])
        return Facet(values, level.strong, level.tier, values)
    end = level.anchor + width
    after = [hit for hit in hits if "metric" in hit.facets and "variant" not in hit.facets
             and hit.start >= end and not level.text[end:hit.start].strip(" %")]
    if not after:
        return None
    values = named_values(after, "metric")
    outright = all("metric" not in hit.implied for hit in after)
    return Facet(values, level.strong and outright, level.tier, values)


PARENTHESIS_GAP = re.compile(r"\s*\(\s*")


def _labelled_before_parenthesis(site: Site, hits: list[list[Hit]]) -> Facet | None:
    """In prose, a number alone in parentheses states the metric named right before them
    (``strong bias towards longer outputs (0.74) and relatively low correlation with human
    annotations (63.2)``: the correlation's, not the bias named outright farther back)."""
    if len(site.levels) < 2 or site.in_table or site.levels[0].tier != "clause":
        return None
    sentence = site.levels[1]
    if sentence.tier != "sentence" or sentence.anchor is None:
        return None
    before = [hit for hit in hits[1] if "metric" in hit.facets and hit.end <= sentence.anchor
              and PARENTHESIS_GAP.fullmatch(sentence.text[hit.end:sentence.anchor])]
    if not before:
        return None
    values = frozenset(before[-1].facets["metric"])
    return Facet(values, sentence.strong, sentence.tier, values)


def _a_heading_s_foreign_metric(facet: str, level: Level, picked: Facet) -> bool:
    """Another metric named only in a heading (``Fine-tuning Pre-trained MAE``: a method's
    name that reads as one) or an earlier sentence (``The exact same hyper-parameters …``)
    says nothing of the number."""
    return facet == "metric" and level.tier in ("scope", "paragraph") and all(
        value.startswith("@") for value in picked.values)


def _names_variants(level: Level, site: Site) -> bool:
    """Whether ``level`` may name the statement's variant: it does, or it is the sentence just
    before a difference (``We replace X by Y. The accuracy increases by 0.2%``)."""
    return level.names_variants or (level.carries and "difference" in site.statement.form)


def _reads(facet: str, level: Level, site: Site) -> bool:
    """Headers say what a column's numbers are; prose says it next to the number."""
    if site.in_table:
        return level.tier in ("cell", "column", "row", "corner") or facet == "dispersion"
    return facet == "dispersion" and level.tier in ("clause", "sentence")




def cited_subject(site: Site, facets: dict[str, Facet]) -> bool:
    """A prose number whose sentence cites another work before it, and whose own clause names
    none of ours (``representations used by [3] … yield 81.5%``): the cited work's."""
    clause = site.levels[0]
    variant = facets.get("variant")
    return (not site.in_table and clause.tier == "clause" and CITATION.search(clause.before)
            is not None and not (variant is not None and variant.tier == "clause"))


VS = r"vs\.?|v\.s\.|versus|compared\s+(?:to|with)"  # the words before the other side
COUNTERPART = re.compile(rf"\b(?:{VS}|against)\s*\(?\s*$", re.IGNORECASE)
OURS = re.compile(r"\b(?:our|ours|we)\b", re.IGNORECASE)


# a parenthesis of the other side's numbers: "(vs 1% for english B/32 and 50% for B/16 …"
COUNTERPARTS_OPEN = re.compile(rf"\((?:{VS})\s[^()]*$", re.IGNORECASE)


def _after_vs(clause: Level) -> bool:
    """Whether a prose number is the other side of a comparison: right after ``vs``, or in a
    parenthesis that opens with it."""
    if clause.anchor is None:
        return False
    lead = clause.text[:clause.anchor]
    return COUNTERPART.search(clause.before[-LEAD:] + lead) is not None or \
        COUNTERPARTS_OPEN.search(clause.before + lead) is not None


# a sentence about the model ours is measured against: "Our reference is TorchVision's …",
# "As our baseline we used …"
REFERENCE_MODEL = re.compile(r"\W*(?:as\s+)?(?:our|the)\s+(?:reference|baseline)(?:\s+model)?"
                             r"\s+(?:is|was|we\s+used?)\b", re.IGNORECASE)


def anothers_number(site: Site, facets: dict[str, Facet]) -> bool:
    """A prose number right after ``vs`` (``56% in italian (vs 21% for clip-italian)``), one
    its sentence gives to another work's model (``their model … reaching 26.4%``, ``they
    show … reaching 50.4%``, ``Paper uses mean over 3 seeds``, no word of ours between), or
    to the reference ours is measured against (``Our reference is TorchVision's pretrained
    Alexnet …``): the other side's, unless its clause names a variant of ours (``(vs 78%
    for the english equivalent)``)."""
    clause, sentence = site.levels[0], site.level("sentence")
    if site.in_table or clause.tier != "clause" or clause.anchor is None:
        return False
    variant, exp = facets.get("variant"), facets.get("exp")
    if _after_vs(clause):
        # ours only if its clause names the run and its sentence the experiment (the other
        # side's is its partner's: ``43% on imagenet1k italian (vs 21% for english B/32)``)
        return variant is None or variant.tier != "clause" or (
            exp is not None and exp.tier not in ("clause", "sentence"))
    if variant is not None and variant.tier == "clause":
        return False
    if sentence is not None and REFERENCE_MODEL.match(sentence.text):
        return True  # the reference's name, in its sentence, is no name of ours
    before = sentence.text[:sentence.anchor] if sentence and sentence.anchor is not None else ""
    theirs = list(THEIRS.finditer(before))
    return bool(theirs) and OURS.search(before, theirs[-1].end()) is None


def respectively(site: Site, vocabulary: Vocabulary) -> dict[str, Facet]:
    """``A and B reach x and y, respectively``: the k-th value goes with the k-th name (a
    run's, a metric's or an experiment's: ``75.7% and 55.7% … on the "Emotions" and
    "Questions" categories, respectively``)."""
    sentence = site.level("sentence")
    if sentence is None or "respectively" not in sentence.text.lower():
        return {}
    end = sentence.text.lower().index("respectively")
    values = [s.anchor for s in find_statements(sentence.text[:end]) if s.part("value")]
    if sentence.anchor not in values or len(values) < 2:
        return {}
    position = values.index(sentence.anchor)
    paired = {}
    for facet in ("variant", "metric", "exp"):
        hits = [hit for hit in vocabulary.find(sentence.text) if facet in hit.facets]
        named = _distinct(hits, facet)
        if len(named) != len(values):  # more names: those listed together (``TransE and
            named = _listed(hits, sentence.text, facet, len(values))  # DistMult``)
        if len(named) == len(values):
            paired[facet] = Facet(frozenset(named[position]), True, named=named[position])
    if "variant" not in paired:  # names that are aliases of many runs' claims (``TransE``)
        runs = _listed_runs(vocabulary.find(sentence.text), sentence.text, len(values))
        if runs:
            paired["variant"] = Facet(runs[position], True, named=runs[position])
    return paired


def _listed_runs(hits: list[Hit], text: str, count: int) -> list[frozenset[str]]:
    """The runs each of ``count`` names listed together names by its claims (``TransE and
    DistMult``: the runs of each score function, a comparison's both sides), when no two
    names share one."""
    listed = _listed([hit for hit in hits if "claims" in hit.facets], text, "claims", count)
    runs = [frozenset(run for claim in claims for run in runs_of(claim)) for claims in listed]
    return runs if runs and not any(a & b for a, b in combinations(runs, 2)) else []


LIST_JOINT = re.compile(r"\s*(?:,\s*(?:and\s+)?|and\s+)", re.IGNORECASE)


def _listed(hits: list[Hit], text: str, facet: str, count: int) -> list[frozenset[str]]:
    """The values of ``count`` names listed together (``TransE and DistMult``, ``A, B and
    C``), the first such list; none when no list has that many."""
    run: list[Hit] = []
    for hit in hits:
        if run and not LIST_JOINT.fullmatch(text[run[-1].end:hit.start]):
            if len(run) == count:
                break
            run = []
        run.append(hit)
    named = _distinct(run, facet) if len(run) == count else []
    return named if len(named) == count else []


def _distinct(hits: list[Hit], facet: str) -> list[frozenset[str]]:
    seen: list[frozenset[str]] = []
    for hit in hits:
        values = frozenset(hit.facets[facet])
        if values not in seen:
            seen.append(values)
    return seen
