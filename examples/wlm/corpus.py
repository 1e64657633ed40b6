"""A small English-like corpus, generated deterministically (no download): ``python corpus.py``
writes ``data/train.txt``, ``data/valid.txt`` and ``data/test.txt``.

Sentences come from a small grammar over a Zipf-weighted vocabulary, and each paragraph keeps
to one topic, so that context predicts the next word better than word frequencies do — what a
language model has to learn. Python's ``random.Random`` is stable across versions and
platforms, so the files are byte-identical everywhere.
"""

from __future__ import annotations

import random
from pathlib import Path

TOPICS = {
    "sea": ("ship", "wave", "sailor", "harbour", "storm", "island", "net", "fish", "tide"),
    "city": ("street", "market", "bridge", "tower", "train", "crowd", "shop", "lamp", "square"),
    "forest": ("tree", "river", "fox", "path", "leaf", "stone", "owl", "hill", "cabin"),
    "school": ("teacher", "book", "lesson", "student", "desk", "bell", "garden", "letter", "map"),
}
VERBS = ("saw", "found", "crossed", "left", "watched", "followed", "reached", "carried", "kept",
         "missed", "painted", "opened")
ADJECTIVES = ("old", "small", "quiet", "bright", "dark", "long", "cold", "green", "heavy",
              "strange")
DETERMINERS = ("the", "a", "every", "that", "one")
PREPOSITIONS = ("near", "under", "behind", "across", "beside", "over")
ADVERBS = ("slowly", "again", "early", "late", "twice", "alone")
SPLITS = {"train": 3000, "valid": 300, "test": 300}  # sentences


def zipf_choice(rng: random.Random, words: tuple[str, ...]) -> str:
    """A word drawn with weight 1/rank: a few frequent words, a long tail."""
    return rng.choices(words, weights=[1 / rank for rank in range(1, len(words) + 1)])[0]


def noun_phrase(rng: random.Random, topic: str, depth: int = 0) -> list[str]:
    words = [zipf_choice(rng, DETERMINERS)]
    if rng.random() < 0.4:
        words.append(zipf_choice(rng, ADJECTIVES))
    pool = TOPICS[topic] if rng.random() < 0.85 else TOPICS[rng.choice(sorted(TOPICS))]
    words.append(zipf_choice(rng, pool))
    if depth == 0 and rng.random() < 0.3:
        words += [zipf_choice(rng, PREPOSITIONS), *noun_phrase(rng, topic, depth + 1)]
    return words


def sentence(rng: random.Random, topic: str) -> list[str]:
    verb_phrase = [zipf_choice(rng, VERBS), *noun_phrase(rng, topic)]
    if rng.random() < 0.3:
        verb_phrase.append(zipf_choice(rng, ADVERBS))
    return [*noun_phrase(rng, topic), *verb_phrase, "."]


def paragraphs(rng: random.Random, sentences: int) -> list[str]:
    """Lines of text, one paragraph (one topic) per line."""
    lines, left = [], sentences
    while left > 0:
        topic, size = rng.choice(sorted(TOPICS)), min(left, rng.randint(3, 8))
        lines.append(" ".join(word for _ in range(size) for word in sentence(rng, topic)))
        left -= size
    return lines


def write_corpus(directory: Path, seed: int = 0) -> None:
    """Write the three splits under ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for index, (split, sentences) in enumerate(SPLITS.items()):
        rng = random.Random(seed * 100 + index)
        (directory / f"{split}.txt").write_text("\n".join(paragraphs(rng, sentences)) + "\n")


if __name__ == "__main__":
    write_corpus(Path(__file__).resolve().parent / "data")
