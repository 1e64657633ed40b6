"""What a table's aliases pin down: each alias names the claims that carry it, and a cell is
about the claims every alias around it names.

In ``EVIDENCE.json`` an alias is a claim's name for documents (``CoLES``, ``CIFAR-10``,
``SWA 1.5 Budgets``); shared by several claims, it names them all. A cell's column, row (all
its label's aliases: ``PyramidNet-200 + CutMix``) and cell text narrow the claims to those
every alias there names; each alias of the caption and the headings narrows them further
where that leaves any. Where the strong levels contradict each other (``ResNet-50 +
DropBlock`` when only the CIFAR-100 run has DropBlock), no claim is meant and the number is
left alone.

A row naming an experiment and no variant (``ResNet50`` above ``ResNet50+Mixup``) is that
experiment's baseline, when its comparisons have one.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations

from rgt.evidence.reconcile.facets import Facet
from rgt.evidence.reconcile.names import alias_key, is_comparison
from rgt.evidence.reconcile.sites import Level, Site
from rgt.evidence.reconcile.text import fold
from rgt.evidence.reconcile.vocabulary import Hit, Vocabulary, id_parts, runs_of

STRONG = ("cell", "column", "row", "corner")
WEAK = ("caption", "scope")
SHARED = {"metric": "metric", "exp": "exp_id", "variant": "variant", "split": "split"}
MOST_SETTINGS = 8  # the most assignments of a row whose ways of leaving some out are tried


def alias_sets(text: str, vocabulary: Vocabulary, key: str = "claims") -> list[frozenset[str]]:
    """The claims each alias in ``text`` names (``own``: only the claims that carry it, not
    those its words name; an alias that is a metric's name has none of its own)."""
    return _claim_sets(vocabulary.find(text), vocabulary, key)


def _claim_sets(hits: list[Hit], vocabulary: Vocabulary, key: str) -> list[frozenset[str]]:
    sets = []
    for hit in hits:
        named = hit.facets.get(key)
        named = vocabulary.composed(hit.phrase, key) if named is None else named
        if named is not None:
            sets.append(frozenset(named))
    return sets


ALTERNATIVES_GAP = re.compile(r"\s*[;/]\s*")


def level_claims(text: str, vocabulary: Vocabulary, key: str = "claims") -> frozenset[str] | None:
    """The claims every alias in ``text`` names (None: it holds no alias); aliases listed
    apart by ``;`` or ``/`` are alternatives, naming the claims either names (``mAP
    (box;mask)``: a cell's box mAP or its mask mAP)."""
    hits = [hit for hit in vocabulary.find(text) if key in hit.facets]
    groups: list[list[Hit]] = []
    for index, hit in enumerate(hits):
        if index and ALTERNATIVES_GAP.fullmatch(text[hits[index - 1].end:hit.start]):
            groups[-1].append(hit)
        else:
            groups.append([hit])
    sets = [frozenset().union(*(hit.facets[key] for hit in group)) for group in groups]
    return frozenset.intersection(*sets) if sets else None


def aliased(site: Site, vocabulary: Vocabulary) -> frozenset[str] | None:
    """The claims a table cell's aliases pin down; None when they pin nothing, empty when
    its column, row and cell name no claim in common."""
    if not site.in_table:
        return None
    pinned = None
    for level in site.levels:
        if level.tier in STRONG and not _a_columns_name(level, vocabulary):
            named = level_claims(level.text, vocabulary)
            if named is None and level.tier == "row":
                named = level_claims(level.text, vocabulary, "ids")
            if named is None:
                continue  # a level without an alias (a row of hyperparameters) pins nothing
            # the claims that carry its aliases first (``reference ImageNet accuracy``: the
            # checkpoints' top-1, not every ImageNet claim its words name), if any is left
            own = level_claims(level.text, vocabulary, "own") or frozenset()
            narrow = own if pinned is None else pinned & own
            if level.tier in ("column", "corner") and pinned and not narrow and not (
                    pinned & named):
                continue  # the cell's own words over its header's (``3.87 (1 run)`` under
                # ``Test Error (median of 3 runs)``); the row's over the header above the
                # names (``T2T Transformer`` over ``Performer``: a setting, no run)
            if level.tier == "row" and pinned and not pinned & named:
                named = _settings_left_out(level.text, vocabulary, pinned) or \
                    _joined_left_out(level.text, vocabulary, pinned) or \
                    _other_tables_left_out(level.text, vocabulary, pinned)
            if level.tier == "row" and not named:
                named = _assignments_left_out(level.text, vocabulary)
            if level.tier == "row" and not named and level.own:
                # a group's name carried down (``Examination`` over ``C-Eval``) yields to
                # the row's own
                named = level_claims(level.own, vocabulary) or frozenset()
            pinned = narrow or (named if pinned is None else pinned & named)
            if pinned is not None and not pinned:
                return frozenset()
        elif level.tier in WEAK and pinned:
            hits = vocabulary.find(level.text)
            sets = _not_alternatives(_claim_sets(hits, vocabulary, "claims"), pinned)
            # the nearest heading first: a section's ``Part Segmentation (ShapeNet)`` over the
            # document title's ``PointNet++``
            titled = _titled(level, vocabulary)
            own = frozenset().union(*_claim_sets(hits, vocabulary, "own"))
            for named in reversed(sets) if level.tier == "scope" else sets:
                if _differences_only(pinned & named, pinned):
                    continue  # a caption naming a comparison's sides names no difference
                pinned = _of_the_same_runs(pinned, pinned & named & own) or (
                    pinned & named if pinned & named else (
                        _extended(pinned, named) if named == titled else pinned))
    return pinned


def _of_the_same_runs(pinned: frozenset[str], carried: frozenset[str]) -> frozenset[str]:
    """The pinned claims that carry a caption's or heading's alias, when they are of every
    run the pinned ones are (``Manual evaluation on the Yelp dataset`` over ``Ours (DAE) |
    GM``: the run's human rating, not its automatic one); none when the alias would pick a
    run instead of the row (``Model combination`` over a ``YOLO`` row: YOLO's own mAP)."""
    def runs(claims: frozenset[str]) -> set[str]:
        return {run for claim in claims for run in runs_of(claim)}
    return carried if carried and runs(carried) == runs(pinned) else frozenset()


def _settings_left_out(text: str, vocabulary: Vocabulary, pinned: frozenset[str]
                       ) -> frozenset[str]:
    """The claims a row's aliases name when those naming only its settings are left out
    (``roformer … attention_rescoring`` under ``Params``: the decoding method names the runs
    of the model decoded so, the parameter count is the model's): only when every run an
    alias left out names is a run of a model the column's claims are about
    (``roformer_…_rescoring`` of ``roformer``)."""
    kept, apart = _kept_and_left(text, vocabulary, pinned)
    left = frozenset().union(*apart)
    if not kept or not left:
        return frozenset()
    if any(map(_a_comparison, left)):
        return frozenset()  # a comparison's name is no setting of its candidate
    named = frozenset.intersection(*kept)
    models = {run for claim in pinned for run in runs_of(claim)}
    return named if all(any(run.startswith(f"{model}_") for model in models)
                        for claim in left for run in runs_of(claim)) else frozenset()


def _joined_left_out(text: str, vocabulary: Vocabulary, pinned: frozenset[str]
                     ) -> frozenset[str]:
    """The claims a row's aliases name when those written joined into a longer word are
    left out (``dindex-dpr-multi-pca768``, an index's name beside the run ``DPR-768``: a
    word of that name, not the run ``DPR-Multi``), where the others name some pinned claim."""
    hits = [hit for hit in vocabulary.find(text) if "claims" in hit.facets]
    kept = [frozenset(hit.facets["claims"]) for hit in hits if not _joined(text, hit)]
    if not kept or len(kept) == len(hits):
        return frozenset()
    named = frozenset.intersection(*kept)
    return named if named & pinned else frozenset()


def _other_tables_left_out(text: str, vocabulary: Vocabulary, pinned: frozenset[str]
                           ) -> frozenset[str]:
    """The claims a row's aliases name when those naming only claims of other experiments
    than the column's are left out (``Dali``, the header of a column of ✓ marks, an alias of
    another table's runs, beside ``Barlow Twins``): a setting the row ran with there."""
    kept, left = _kept_and_left(text, vocabulary, pinned)
    experiments = {_experiment(claim) for claim in pinned}
    if not kept or not left or any(_experiment(claim) in experiments
                                   for named in left for claim in named):
        return frozenset()
    named = frozenset.intersection(*kept)
    return named if named & pinned else frozenset()


def _kept_and_left(text: str, vocabulary: Vocabulary, pinned: frozenset[str]
                   ) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """A row's alias sets that name some pinned claim, and those that name none."""
    sets = alias_sets(text, vocabulary)
    return [named for named in sets if named & pinned], \
        [named for named in sets if not named & pinned]


def _experiment(claim_id: str) -> str:
    return (id_parts(claim_id) or ("",))[0]


def _joined(text: str, hit: Hit) -> bool:
    """Whether ``hit`` is written joined by ``-`` or ``_`` to a word before or after it."""
    return bool(re.match(r"[-_]\w", text[hit.end:hit.end + 2])
                or re.fullmatch(r"\w[-_]", text[max(0, hit.start - 2):hit.start]))


def _assignments_left_out(text: str, vocabulary: Vocabulary) -> frozenset[str]:
    """The claims a row's aliases name when the fewest of those written as a setting's
    assignment are left out (``TRAIN.LR_SCHEDULE=2x``: a setting the row's run shares with
    the run it names); none when two ways of leaving as few out name different claims."""
    hits = [hit for hit in vocabulary.find(text) if "claims" in hit.facets]
    settings = [frozenset(hit.facets["claims"]) for hit in hits
                if "=" in text[hit.start:hit.end]]
    names = [frozenset(hit.facets["claims"]) for hit in hits
             if "=" not in text[hit.start:hit.end]]
    for kept in range(len(settings) - 1, -1, -1) if len(settings) <= MOST_SETTINGS else []:
        found = {frozenset.intersection(*names, *chosen)
                 for chosen in combinations(settings, kept) if names or chosen}
        found.discard(frozenset())
        if found:
            return found.pop() if len(found) == 1 else frozenset()
    return frozenset()


def _extended(pinned: frozenset[str], named: frozenset[str]) -> frozenset[str]:
    """The claims a heading or caption names that extend the pinned runs, of the same metric,
    experiment and split (``optimized for force only`` over a ``SchNet | All`` row: the
    ``schnet_all_forceonly`` run, not ``schnet_all``), no more of them than of those (not a
    sweep's per-seed runs); else the pinned claims."""
    parts = {claim: id_parts(claim) for claim in pinned | named}
    extending = frozenset(claim for claim in named if parts[claim] and any(
        parts[run] and parts[claim][:1] + parts[claim][2:] == parts[run][:1] + parts[run][2:]
        and a_setting_of(parts[claim][1], parts[run][1]) for run in pinned))
    return extending if extending and len(extending) <= len(pinned) else pinned


def _differences_only(narrowed: frozenset[str], pinned: frozenset[str]) -> bool:
    """Whether narrowing ``pinned`` would leave only comparisons of the levels it held
    (``Comparison of the Self-Adversarial … with our Self-Adversarial SANS`` over a row of
    ours: its levels, not only the differences the caption's names share)."""
    return bool(narrowed) and all(map(_a_comparison, narrowed)) and not all(
        map(_a_comparison, pinned))


def _a_comparison(claim_id: str) -> bool:
    return len(runs_of(claim_id)) == 2


def _titled(level: Level, vocabulary: Vocabulary) -> frozenset[str] | None:
    """The claims the innermost heading names when it is, whole, one alias of theirs (``S2EF
    models: optimized for force only``)."""
    heading = level.text.rsplit(" / ", 1)[-1].strip() if level.tier == "scope" else ""
    hits = vocabulary.find(heading) if heading else []
    whole = len(hits) == 1 and hits[0].end - hits[0].start == len(heading)
    return frozenset(hits[0].facets["claims"]) if whole and "claims" in hits[0].facets else None


def a_setting_of(variant: str, run: str) -> bool:
    """Whether ``variant`` is ``run`` with a setting of words (``schnet_all_forceonly``), not a
    numbered one of its runs (``dt_seed1``)."""
    return variant.startswith(f"{run}_") and not re.search(r"\d", variant[len(run):])


def _not_alternatives(sets: list[frozenset[str]], pinned: frozenset[str]
                      ) -> list[frozenset[str]]:
    """The alias sets of a caption that narrow the pinned claims, less those naming one of
    several alternatives (``on CUB and NAB datasets``: each column's dataset, not the
    first-named one for all)."""
    kept = [named & pinned for named in sets]
    return [named for named, here in zip(sets, kept, strict=True)
            if not here or not any(other and not other & here for other in kept)]


# a header over the names that says only what they are: every row is one
ROW_KIND = re.compile(r"\W*(?:models?|methods?|names?|approach(?:es)?|algorithms?|systems?)\W*",
                      re.IGNORECASE)


def _a_columns_name(level: Level, vocabulary: Vocabulary) -> bool:
    """A header over the names whose aliases name no experiment, variant or metric (``Op``
    over ``×``, ``+``), or that says only what the names are (``Model``, an alias of one
    tutorial's run): it names its column, not the claims that happen to carry it."""
    return level.tier == "corner" and (ROW_KIND.fullmatch(level.text) is not None or not any(
        {"exp", "variant", "metric"} & set(hit.facets) for hit in vocabulary.find(level.text)))


def only_names(text: str, vocabulary: Vocabulary) -> bool:
    """Whether ``text`` holds nothing but names (and punctuation, brackets, numbers)."""
    return not vocabulary.uncovered(text)


def baseline_row(site: Site, pinned: frozenset[str], claims: list[dict],
                 vocabulary: Vocabulary) -> frozenset[str]:
    """``pinned`` narrowed to the baseline when the cell's row is nothing but the names of
    one experiment (no variant named), and that experiment's comparisons share one
    baseline."""
    row = site.level("row")
    if row is None or not only_names(row.text, vocabulary):
        return pinned
    by_id = {claim["id"]: claim for claim in claims}
    named = {i for i in level_claims(row.text, vocabulary) or () if i in by_id}
    if not named or len({by_id[i]["exp_id"] for i in named}) != 1:
        return pinned
    if len({by_id[i]["variant"] for i in pinned}) == 1:
        return pinned
    exp = by_id[next(iter(named))]["exp_id"]
    baselines = {c["baseline"] for c in claims if is_comparison(c) and c["exp_id"] == exp}
    if len(baselines) != 1:
        return pinned
    return frozenset(i for i in pinned if by_id[i]["variant"] in baselines) or pinned


def not_the_baselines(site: Site, pinned: frozenset[str] | None, claims: list[dict]
                      ) -> frozenset[str] | None:
    """``pinned`` less the comparisons whose baseline the cell's row names and whose candidate
    it does not (``NSCaching \\cite{…}``, an alias of the differences taken against it): a
    difference is never stated in its baseline's row."""
    row = site.level("row")
    if not pinned or row is None:
        return pinned
    words = set(re.findall(r"[a-z0-9]+", fold(row.text)))
    by_id = {claim["id"]: claim for claim in claims}
    return frozenset(i for i in pinned if i not in by_id or not _baselines_row(by_id[i], words))


def _baselines_row(claim: dict, words: set[str]) -> bool:
    """Whether a row's words name a comparison's baseline (every word its name has and the
    candidate's has not) and none of its candidate's own."""
    if not is_comparison(claim):
        return False
    baseline, candidate = (set(re.split(r"[_\W]+", str(claim.get(side) or "").lower())) - {""}
                           for side in ("baseline", "candidate"))
    own = baseline - candidate
    return bool(own) and own <= words and not (candidate - baseline) & words


def pinned_facets(pinned: frozenset[str], claims: list[dict]) -> dict[str, Facet]:
    """The facets every pinned claim shares, as strongly named ones."""
    chosen = [claim for claim in claims if claim["id"] in pinned]
    found = {}
    for facet, key in SHARED.items():
        if facet == "variant" and any(map(is_comparison, chosen)):
            continue  # a comparison's variant is read from its candidate and baseline
        values = {claim.get(key) for claim in chosen}
        if len(values) == 1 and None not in values:
            found[facet] = Facet(frozenset(values), True, "alias", frozenset(values))
    return found


def plainly_named(site: Site, candidates: list[dict], vocabulary: Vocabulary) -> list[dict]:
    """Of candidates the text around names none apart, the ones all of whose aliases it may
    be using: a claim with a name of its own the text never says (``Legacy models``) is not
    the one a table of the plain models speaks of."""
    if len(candidates) < 2:
        return candidates
    named = [set(_folded_aliases(claim)) for claim in candidates]
    shared = set.intersection(*named)
    said = set().union(*(vocabulary.phrases_in(level.text) for level in site.levels))
    if any((aliases - shared) & said for aliases in named):
        return candidates  # the text names one apart: other rules decide
    plain = [claim for claim, aliases in zip(candidates, named, strict=True)
             if not aliases - shared]
    return plain or candidates


def named_inside(site: Site, candidates: list[dict], vocabulary: Vocabulary) -> list[dict]:
    """Of prose candidates, the one whose own name its sentence says before the number inside
    a longer name (``GAT + C&S (1567000 params, 73.56% base accuracy)``: GAT's base accuracy,
    not Linear's or MLP's), when exactly one is."""
    sentence = site.level("sentence")
    if site.in_table or sentence is None or len(candidates) < 2:
        return candidates
    before = sentence.text[:sentence.anchor]
    names = [fold(before[hit.start:hit.end]) for hit in vocabulary.find(before)]
    named = [set(_folded_aliases(claim)) for claim in candidates]
    carried = Counter(alias for aliases in named for alias in aliases)
    inside = [claim for claim, aliases in zip(candidates, named, strict=True)
              if any(carried[alias] == 1 and _within(alias, names) for alias in aliases)]
    return inside if len(inside) == 1 else candidates


def _within(alias: str, names: list[str]) -> bool:
    """Whether ``alias`` is a word or words of a longer name of ``names``."""
    return any(alias != name and re.search(rf"(?<!\w){re.escape(alias)}(?!\w)", name)
               for name in names)


def _folded_aliases(claim: dict) -> list[str]:
    return [alias_key(alias) for alias in claim.get("aliases") or []]
