"""The words documents use for what a number is about, each with the facets it names.

A facet is one thing a claim is about: ``metric``, ``split``, ``variant``, ``exp``; plus how a
number relates to it: ``kind`` (``difference``), ``dispersion`` (``std``, ``sem``, ``ci``) and,
in table headers, ``role`` (``low``, ``high``, ``seeds``, ``spread``). Words come from the
evidence (metric, variant and experiment ids), from the claims file (``names:`` and each claim's
``aliases``) and from the lists below: the splits, and metrics, systems and hyper-parameters that
are *not* the evidence's — a number named by one of those is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rgt.evidence.reconcile.text import fold

SPLITS = {"train": ["train", "training", "trainset"],
          "val": ["val", "validation", "valid", "dev", "development", "valset", "devset"],
          "test": ["test", "testing", "testset", "held out", "holdout", "generalisation",
                   "generalization"]}
SYNONYMS = {"accuracy": ["acc", "acc.", "top 1", "top 1 accuracy", "top 1 acc."],
            "ece": ["expected calibration error", "calibration error"],
            "loss": ["cross entropy", "nll"],
            "params": ["parameters", "params", "model size", "#params"]}
# Metrics and hyper-parameters a document may quote that are not claims: a number they name
# closest is theirs.
FOREIGN_METRICS = [
    "loss", "ece", "calibration error", "error", "error rate", "top 1 error", "f1", "f1 score",
    "precision", "recall", "auc", "auroc", "bleu", "perplexity", "top 5", "top 5 accuracy",
    "top 5 acc.", "map", "iou", "latency", "throughput", "flops", "gflops", "parameters", "param",
    "params", "hyper parameters", "hyperparameters", "runtime", "wall clock", "memory",
    "inference time", "decoding time", "run time", "learning rate", "lr", "step size",
    "weight decay", "wd", "loc", "localization", "localisation",
    "top 1 loc", "miou", "psnr", "ssim", "fid", "wer", "cer", "rouge", "meteor", "ndcg", "mrr",
    "ap50", "ap75", "mae", "mse", "rmse", "fooling rate", "fooling rates", "success rate",
    "attack success rate",
    "momentum", "dropout rate", "dropout probability", "p", "p value", "alpha", "\u03b1", "beta",
    "\u03b2", "lambda", "\u03bb", "temperature", "label smoothing", "batch size", "warmup",
    "mixing ratio", "kappa", "speed up", "speedup", "slowdown", "overhead", "utilisation",
    "utilization",
]
OTHERS = ["prior work", "previous work", "state of the art", "sota", "et al", "literature",
          "reported by", "reported in", "published"]
# the plural too: a caption's ``bootstrapped standard errors`` says what every spread under it is
DISPERSION = {"std": ["std", "sd", "s.d.", "standard deviation", "standard deviations", "stdev",
                      "std dev"],
              "sem": ["sem", "s.e.m.", "standard error", "standard errors", "se", "s.e.",
                      "stderr"],
              "ci": ["ci", "c.i.", "confidence interval", "confidence intervals"]}
ROLES = {"low": ["ci low", "ci lower", "lower", "low", "lo", "ci lo", "lower bound"],
         "high": ["ci high", "ci upper", "upper", "high", "hi", "ci hi", "upper bound"],
         "seeds": ["seeds", "n seeds", "# seeds", "#seeds", "num seeds", "runs", "n runs",
                   "seed count"],
         "spread": ["spread"]}
# Words holding a split's name that name no split: "pre-training" is a stage, not the train set.
# a phase named, not a split: pre-training, and what training costs (its time, its budget)
# or the size of what it sees (``the square training resolution``)
STAGES = ["pre train", "pre training", "pre trained"] + [
    f"training {noun}" for noun in ("time", "times", "duration", "cost", "budget", "speed",
                                    "hours", "days", "schedule", "recipe", "command", "logs",
                                    "iterations", "steps", "script", "scripts",
                                    "resolution", "resolutions")] + [
    # a protocol, not one split: "10-fold cross-validation", "train/test splits", "cannot be
    # split into independent train/evaluation sets"
    "cross validation", "cross validated"] + [
    f"{train}{joint}{other}" for train in ("train", "training")
    for other in ("test", "val", "dev", "validation", "val/test", "eval", "evaluation")
    for joint in ("/", " ") if joint == "/" or other == "test"]
DIFFERENCE = ["difference", "diff", "delta", "\u0394", "gain", "improvement", "change", "effect",
              "lift"]
BASELINE = "@baseline"  # the word "baseline": the baseline of the comparisons in scope
OTHER = "@other"  # a system that is not one of the evidence's variants


@dataclass(frozen=True)
class Hit:
    """A word found in a text: where, the facets it names, and those only an alias implies."""

    start: int
    end: int
    facets: dict
    implied: frozenset[str] = frozenset()
    phrase: str = ""


def id_parts(claim_id: str) -> tuple[str, ...] | None:
    """A claim id's experiment, run, metric and split (``<exp>/<variant>/<metric>/<split>``);
    None for an id of another shape."""
    parts = tuple(claim_id.split("/"))
    return parts if len(parts) == 4 else None


def runs_of(claim_id: str) -> tuple[str, ...]:
    """The run a claim id names, or a comparison's two (``<candidate>-vs-<baseline>``)."""
    parts = id_parts(claim_id)
    return tuple(parts[1].split("-vs-")) if parts else ()


def phrase_key(phrase: str) -> str:
    """A phrase as the vocabulary keys it: folded, its spaces collapsed."""
    return " ".join(fold(phrase).split())


@dataclass
class Vocabulary:
    """Phrases (folded) and the facets each names; ``find`` locates them in a text."""

    phrases: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    implied: dict[str, set[str]] = field(default_factory=dict)
    _pattern: re.Pattern | None = None

    def add(self, phrase: str, facet: str, values: set[str] | str, implied: bool = False) -> None:
        """Let ``phrase`` name ``values`` of ``facet`` (in addition to what it named before);
        ``implied``: only because an alias's claims share it (an explicit name wins)."""
        key = phrase_key(phrase)
        if not key:
            return  # a name of punctuation only (``-``, ``*``) names nothing a text can say
        values = {values} if isinstance(values, str) else set(values)
        named = self.phrases.setdefault(key, {})
        if implied and facet not in named:
            self.implied.setdefault(key, set()).add(facet)
        elif not implied:
            self.implied.get(key, set()).discard(facet)
        named.setdefault(facet, set()).update(values)
        self._pattern = None

    def named(self, phrase: str) -> dict[str, set[str]]:
        """The facets ``phrase`` names as a whole (none: an empty dict)."""
        return self.phrases.get(phrase_key(phrase), {})

    def forget(self, phrase: str, facet: str) -> None:
        """Let ``phrase`` no longer name ``facet`` (an alias overriding a common word's)."""
        if self.named(phrase).pop(facet, None) is not None:
            self._pattern = None

    def add_all(self, facet: str, table: dict[str, list[str]]) -> None:
        """Add every phrase of ``{value: [phrases]}`` for ``facet``."""
        for value, phrases in table.items():
            for phrase in phrases:
                self.add(phrase, facet, value)

    def pattern(self) -> re.Pattern:
        """One regex for every phrase, longest first (``top 5 accuracy`` before ``accuracy``),
        its last word also in the plural (``accuracies``, ``losses``, ``budgets``)."""
        if self._pattern is None:
            ordered = sorted(self.phrases, key=len, reverse=True)
            words = "|".join(self._regex(phrase) for phrase in ordered)
            # not inside a longer number or version either (``2`` in ``2.52``, ``v1`` in ``v1.5``)
            self._pattern = re.compile(rf"(?<!\w)(?<!\d\.)(?:{words})(?![\w])(?!\.\d)")
        return self._pattern

    def _regex(self, phrase: str) -> str:
        return r"\s+".join([*map(_joined, phrase.split()[:-1]), self._last_word(phrase)])

    def _last_word(self, phrase: str) -> str:
        """A phrase's last word as a regex: also plural for the names of things (metrics,
        variants, experiments), not for a split (``train`` is no ``trains``)."""
        word = phrase.split()[-1]
        named = set(self.phrases[phrase]) & {"metric", "variant", "exp", "claims"}
        return _plural(word) if named else _joined(word)

    def _key(self, matched: str) -> str:
        """The phrase a match is of (its singular, when it was written in the plural; ``gpt 2``
        for ``gpt2``)."""
        key = " ".join(matched.split())
        for suffix, singular in (("", ""), ("ies", "y"), ("es", ""), ("s", "")):
            for written in (key, BOUNDARY.sub("", key)):
                stem = written[:len(written) - len(suffix)] + singular
                if written.endswith(suffix) and stem in self.phrases:
                    return stem
        return key

    def _matched_phrase(self, matched: str) -> str:
        """The phrase a match is of, even where its key is not (``top 1 accuracies`` of
        ``top1 accuracy``: plural and apart at once): the phrase whose own regex it matches."""
        key = self._key(matched)
        return key if key in self.phrases else next(
            phrase for phrase in sorted(self.phrases, key=len, reverse=True)
            if re.fullmatch(self._regex(phrase), " ".join(matched.split())))

    def find(self, text: str) -> list[Hit]:
        """Every phrase occurrence in ``text`` (folded), leftmost-longest, not overlapping —
        unless a longer phrase starts inside one whose first words are a phrase too
        (``MNIST GC32-P4-GC64-P4-FC512``: ``MNIST`` and the architecture, not ``MNIST GC32``)."""
        if not self.phrases:
            return []
        folded, hits, position = fold(text), [], 0
        while (match := self.pattern().search(folded, position)) is not None:
            spans = self._split(folded, match) or [match.span()]
            hits += [hit for hit in (self._hit(folded, start, end) for start, end in spans
                                     if not self._counted(folded, start, end))
                     if not _an_alias_in_a_file_name(hit, text)]
            position = spans[-1][1]
        return hits

    def _counted(self, folded: str, start: int, end: int) -> bool:
        """A name in the plural after a count is that many things, no name (``4 clips x 3
        crop`` beside a run pretrained on ``clip``)."""
        written = " ".join(folded[start:end].split())
        return written not in self.phrases and written.endswith("s") \
            and COUNT_BEFORE.search(folded, 0, start) is not None

    def phrases_in(self, text: str) -> set[str]:
        """The phrases found in ``text``, as keys (singular, folded)."""
        folded = fold(text)
        return {self._key(folded[hit.start:hit.end]) for hit in self.find(text)}

    def _split(self, folded: str, match: re.Match) -> list[tuple[int, int]] | None:
        """The match as two phrases, when a longer one starts at one of its inner words."""
        for inner in re.finditer(r"(?<=\s)\S", match.group(0)):
            start = match.start() + inner.start()
            longer = self.pattern().match(folded, start)
            head = folded[match.start():start].rstrip()
            if longer and longer.end() > match.end() and self._key(head) in self.phrases:
                return [(match.start(), match.start() + len(head)), longer.span()]
        return None

    def _hit(self, folded: str, start: int, end: int) -> Hit:
        key = self._matched_phrase(folded[start:end])
        return Hit(start, end, self.phrases[key], frozenset(self.implied.get(key, ())), key)

    def composed(self, phrase: str, facet: str) -> set[str] | None:
        """What the shorter phrases ``phrase`` is made of each name of ``facet``, in common
        (``top20 accuracy``, a metric's id spelled, written as the aliases ``Top20`` and
        ``accuracy`` that only the code base's runs carry); None when its words are not all
        such phrases."""
        words = phrase.split()
        splits: dict[int, set[str] | None] = {0: None}
        for end in range(1, len(words) + 1):
            for start in range(end):
                part = " ".join(words[start:end])
                if start in splits and (start, end) != (0, len(words)) \
                        and facet in self.phrases.get(part, {}):
                    known = splits[start]
                    named = set(self.phrases[part][facet])
                    splits.setdefault(end, named if known is None else known & named)
                    break
        return splits.get(len(words)) if len(words) > 1 else None

    def blanked(self, text: str) -> str:
        """``text`` (folded) with every name found in it blanked out."""
        rest = list(fold(text))
        for hit in self.find(text):
            rest[hit.start:hit.end] = " " * (hit.end - hit.start)
        return "".join(rest)

    def uncovered(self, phrase: str) -> list[str]:
        """The words of ``phrase`` (two letters or more) that no name covers."""
        return re.findall(r"[^\W\d_]{2,}", self.blanked(phrase))

    def only(self, phrase: str, facet: str, *others: str) -> bool:
        """Whether ``phrase`` is nothing but names of ``facet`` (``Acc.``, ``Top-1 Error``),
        or of ``others`` beside it (``Test accuracy``: a split and a metric)."""
        hits = self.find(phrase)
        return bool(hits) and all(facet in hit.facets or set(others) & set(hit.facets)
                                  for hit in hits) and any(facet in hit.facets for hit in hits) \
            and not self.uncovered(phrase)

    def facets_in(self, phrase: str) -> dict[str, set[str]]:
        """The facets named by the words inside ``phrase`` (merged)."""
        merged: dict[str, set[str]] = {}
        for hit in self.find(phrase):
            for facet, values in hit.facets.items():
                merged.setdefault(facet, set()).update(values)
        return merged


BOUNDARY = re.compile(r"(?<=[a-z])\s(?=\d)")
COUNT_BEFORE = re.compile(r"(?<![\w.])\d+\s+$")
# a file's name (``ViTPose_huge_coco_256x192.py``, ``logs/vitpose-b.log.json``)
FILE_NAME = re.compile(r"[\w./-]+\.(?:py|json|ya?ml|pth|pyth|pt|ckpt|bin|log|txt|sh|onnx|h5|"
                       r"pkl|npz|npy|safetensors|cfg|ini|toml|weights|caffemodel|tflite|"
                       r"params|tar|zip)\b")


def _an_alias_in_a_file_name(hit: Hit, text: str) -> bool:
    """Whether a hit is an alias written as a part of a file's name, not the whole of it
    (``ViTPose``, another claim's alias, in ``ViTPose_huge_coco_256x192.py``): a word of a
    path, no name. A run's id written there (``swav_800ep_pretrain.pth``) still names it."""
    if "claims" not in hit.facets or "ids" in hit.facets:
        return False
    return any(match.start() <= hit.start and hit.end <= match.end()
               and (match.start(), match.end()) != (hit.start, hit.end)
               for match in FILE_NAME.finditer(text, max(0, hit.start - 200), hit.end + 200))


def _joined(word: str) -> str:
    """A word's regex where a letter and a digit may be apart (``gpt2``: GPT-2, ``resnet50``:
    ResNet-50; a hyphen reads as a space)."""
    return re.sub(r"(?<=[a-z])(?=\d)", r"\\s?", re.escape(word))


def _plural(word: str) -> str:
    """A word's regex that also matches its plural (``accurac(?:y|ies)``)."""
    escaped = _joined(word)
    if not word.isalpha() or len(word) < 3:
        return escaped
    if word.endswith("y"):
        return rf"{re.escape(word[:-1])}(?:y|ies)"
    return rf"{escaped}(?:es|s)?"


def base_vocabulary() -> Vocabulary:
    """The words every project shares: splits, foreign metrics, other systems, statistics."""
    vocabulary = Vocabulary()
    vocabulary.add_all("split", SPLITS)
    for phrase in FOREIGN_METRICS:
        vocabulary.add(phrase, "metric", "@" + phrase)
    for phrase in OTHERS:
        vocabulary.add(phrase, "variant", OTHER)
    vocabulary.add_all("dispersion", DISPERSION)
    vocabulary.add_all("role", ROLES)
    for phrase in DIFFERENCE:
        vocabulary.add(phrase, "kind", "difference")
    vocabulary.add("baseline", "variant", BASELINE)
    for phrase in STAGES:
        vocabulary.add(phrase, "stage", phrase)
    return vocabulary
