"""Write data/input.txt: sentences from a small grammar, seeded, so the corpus is the same bytes
on every machine (``python corpus.py`` regenerates it; nothing is downloaded)."""

from __future__ import annotations

import random
from pathlib import Path

SUBJECTS = ["the cat", "a dog", "the old man", "my sister", "the bird", "our teacher"]
VERBS = ["sees", "likes", "follows", "paints", "finds", "calls"]
OBJECTS = ["the red ball", "a small house", "the river", "an apple", "the moon", "a book"]
ENDINGS = ["today", "at night", "in the garden", "again", "slowly", "with joy"]


def sentence(rng: random.Random) -> str:
    """One sentence: subject, verb, object and, half the time, an ending."""
    words = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)]
    if rng.random() < 0.5:
        words.append(rng.choice(ENDINGS))
    return " ".join(words) + "."


def main() -> None:
    rng = random.Random(0)
    lines = [" ".join(sentence(rng) for _ in range(4)) for _ in range(160)]
    path = Path(__file__).resolve().parent / "data" / "input.txt"
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
